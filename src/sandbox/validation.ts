import type { z } from 'zod';
import { issuesToDetails } from '../provider/errors.js';
import { validationFailed } from './errors.js';

/** Parses with a schema or throws the sandbox's 422 listing every problem (the client lists them the same way). */
export function parseOr422<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationFailed(issuesToDetails(result.error.issues));
  return result.data;
}
