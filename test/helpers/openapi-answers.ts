/**
 * Checks the sandbox's real /v1.0 answers against the committed docs/openapi.json: the
 * operation for the method and path, the status among its responses, the body against that
 * response's schema (JSON Schema 2020-12, ajv), and a success body also with the client's
 * tolerant parser. startTestSandbox runs every answer through it by default.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { ALWAYS_POSSIBLE_ERRORS, fullPath, OPERATIONS } from '../../src/provider/openapi-routes.js';
import type { SandboxAnswer } from '../../src/sandbox/context.js';

export const OPENAPI_FILE = resolve(dirname(fileURLToPath(import.meta.url)), '../../docs/openapi.json');
const SCHEMA_BASE = 'https://wpp.invalid/openapi/schemas/';

type Json = Record<string, unknown>;
/** The parts of docs/openapi.json the checks read. */
export interface OpenApiDocument {
  openapi: string;
  paths: Record<
    string,
    Record<string, { operationId: string; parameters?: { name: string; in: string }[]; responses: Record<string, Json> }>
  >;
  components: { schemas: Record<string, Json>; responses: Record<string, Json> };
}

/** A copy of `schema` whose `#/components/schemas/X` references point at the schemas ajv holds. */
function rebased(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebased);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' ? value.replace('#/components/schemas/', SCHEMA_BASE) : rebased(value),
    ]),
  );
}

/** A strict ajv holding every component schema of the document. */
export function openApiAjv(document: OpenApiDocument): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  ajv.addFormat('date-time', { validate: (value: string) => !Number.isNaN(Date.parse(value)) });
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    ajv.addSchema({ ...(rebased(schema) as Json), $id: `${SCHEMA_BASE}${name}` });
  }
  return ajv;
}

/** The document's path template matching a concrete path (`/v1.0/user/a@b.c` → `/v1.0/user/{id}`). */
function templateOf(document: OpenApiDocument, path: string): string | undefined {
  return Object.keys(document.paths).find((template) => {
    const pattern = template.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+');
    return new RegExp(`^${pattern}$`).test(path);
  });
}

/**
 * A path or method outside the interface is refused: 404, or first like any /v1.0 request (the
 * key check, the rate limit, an injected fault), each with the error body of its status.
 */
const OUTSIDE_THE_INTERFACE = Object.fromEntries(
  [...ALWAYS_POSSIBLE_ERRORS, 404].map((status) => [String(status), { $ref: `#/components/responses/Error${status}` }]),
);

export interface AnswerChecker {
  /** Problems with one answer: empty when it matches the document. */
  check(answer: SandboxAnswer): string[];
}

/** A checker over a document (by default the committed docs/openapi.json). */
export function createAnswerChecker(document: OpenApiDocument = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'))): AnswerChecker {
  const ajv = openApiAjv(document);
  const compiled = new Map<string, ValidateFunction>();
  const validator = (key: string, schema: unknown) => {
    let validate = compiled.get(key);
    if (!validate) compiled.set(key, (validate = ajv.compile(rebased(schema) as Json)));
    return validate;
  };
  const responseOf = (response: Json): Json => {
    const ref = response.$ref;
    return typeof ref === 'string' ? (document.components.responses[ref.replace('#/components/responses/', '')] ?? {}) : response;
  };
  return {
    check(answer) {
      const where = `${answer.method} ${answer.path} → ${answer.status}`;
      const body = JSON.parse(JSON.stringify(answer.body)) as unknown;
      const template = templateOf(document, answer.path);
      const operation = template ? document.paths[template]?.[answer.method.toLowerCase()] : undefined;
      const responses = operation?.responses ?? OUTSIDE_THE_INTERFACE;
      const declared = responses[String(answer.status)];
      if (!declared) return [`${where}: status not in docs/openapi.json (${Object.keys(responses).join(', ')})`];
      const response = responseOf(declared);
      const schema = (response.content as Record<string, { schema: unknown }> | undefined)?.['application/json']?.schema;
      const problems: string[] = [];
      const validate = validator(`${template} ${answer.method} ${answer.status}`, schema);
      if (!validate(body)) problems.push(`${where}: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`);
      for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, { required?: boolean }>)) {
        if (header.required && answer.headers[name.toLowerCase()] === undefined) problems.push(`${where}: header ${name} missing`);
      }
      problems.push(...clientProblems(where, template, answer, body));
      return problems;
    },
  };
}

/** The client's tolerant parser must take every success answer the document describes. */
function clientProblems(where: string, template: string | undefined, answer: SandboxAnswer, body: unknown): string[] {
  const operation = OPERATIONS.find((op) => fullPath(op) === template && op.method === answer.method.toLowerCase());
  const parser = operation?.answers.find((candidate) => candidate.status === answer.status)?.client;
  if (!parser) return [];
  const parsed = parser.safeParse(body);
  return parsed.success ? [] : [`${where}: the client's parser refuses it: ${parsed.error.message}`];
}
