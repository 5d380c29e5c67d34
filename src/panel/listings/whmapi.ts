/**
 * WHM API 1's JSON as the cPanel readers get it (`whmapi1 --output=json <call>`): every answer
 * carries `metadata.result` (1: done) and, when it failed, `metadata.reason`.
 */
import { z } from 'zod';
import { AppError } from '../../errors.js';

export const WHMAPI1 = '/usr/local/cpanel/bin/whmapi1';

export const metadataSchema = z.looseObject({ result: z.union([z.number(), z.string()]), reason: z.string().optional() });

/** whmapi1's JSON, checked: a failed call (metadata.result 0, or no data) or another shape is refused with what the tool said. */
export function parseWhmapi<S extends z.ZodType>(schema: S, stdout: string, call: string): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    throw new AppError('VALIDATION_FAILED', `whmapi1 ${call} did not print JSON (is --output=json supported?)`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError('VALIDATION_FAILED', `whmapi1 ${call} printed an unexpected shape: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  const { metadata, data } = parsed.data as { metadata: z.output<typeof metadataSchema>; data?: unknown };
  if (Number(metadata.result) !== 1 || data === undefined) {
    throw new AppError('VALIDATION_FAILED', `whmapi1 ${call} failed: ${metadata.reason ?? 'no reason given'}`);
  }
  return parsed.data;
}
