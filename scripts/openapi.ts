/**
 * `npm run openapi`: writes docs/openapi.json from the shared zod schemas
 * (src/provider/openapi.ts), formatted as prettier formats it, so `prettier --check` and the
 * test that keeps the committed file current (test/unit/openapi.test.ts) agree on every byte.
 */
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { buildOpenApiDocument } from '../src/provider/openapi.js';

export const OPENAPI_PATH = resolve(dirname(fileURLToPath(import.meta.url)), '../docs/openapi.json');

/** The document's text as committed: every object expanded (prettier keeps that), short arrays on one line. */
export async function renderOpenApi(): Promise<string> {
  const options = (await prettier.resolveConfig(OPENAPI_PATH)) ?? {};
  return prettier.format(JSON.stringify(buildOpenApiDocument(), null, 2), { ...options, filepath: OPENAPI_PATH });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(OPENAPI_PATH, await renderOpenApi());
  console.log(`wrote ${OPENAPI_PATH}`);
}
