import type { z } from 'zod';
import { validationFailed, type ErrorDetail } from './errors.js';

/** Turns zod issues into the error body's `details`, one entry per bad field or unknown key. */
export function issuesToDetails(issues: z.core.$ZodIssue[]): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of issues) {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) details.push({ path: path ? `${path}.${key}` : key, message: 'unknown field' });
    } else {
      details.push({ path, message: issue.message });
    }
  }
  return details;
}

/** Parses with a schema or throws the sandbox's 422 listing every problem. */
export function parseOr422<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationFailed(issuesToDetails(result.error.issues));
  return result.data;
}
