/**
 * docs/openapi.json as a pure function of the shared zod schemas and the operation table
 * (openapi-routes.ts): `npm run openapi` writes it, a test keeps the committed file equal to
 * it, and the sandbox serves it. Requests are published as they are sent (zod's input side,
 * the client's strict schemas), answers exactly as the sandbox sends them (wire.ts).
 * Checks zod cannot express (a domain that normalises, an e-mail-shaped id, cross-field
 * rules) stay in the descriptions of docs/provider-api.md.
 */
import { z } from 'zod';
import {
  ALWAYS_POSSIBLE_ERRORS,
  ANSWER_COMPONENTS,
  OPERATIONS,
  REQUEST_COMPONENTS,
  fullPath,
  type Answer,
  type Operation,
} from './openapi-routes.js';
import { API_VERSION } from './spec.js';
import { ERROR_CODES_BY_STATUS, type ErrorStatus } from './wire.js';

type Json = Record<string, unknown>;

const componentRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Dates the client accepts as Date objects travel as ISO 8601 strings. */
const jsonOptions = (io: 'input' | 'output') => ({
  target: 'draft-2020-12' as const,
  io,
  uri: (id: string) => `#/components/schemas/${id}`,
  override: (ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: z.core.JSONSchema.BaseSchema }) => {
    if (ctx.zodSchema._zod.def.type === 'date') Object.assign(ctx.jsonSchema, { type: 'string', format: 'date-time' });
  },
  unrepresentable: 'any' as const,
});

/** One JSON Schema per component, without the `$schema`/`$id` a standalone document would carry. */
function componentSchemas(components: Record<string, z.ZodType>, io: 'input' | 'output'): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(components)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, jsonOptions(io)) as { schemas: Record<string, Json> };
  return Object.fromEntries(
    Object.keys(components).map((id) => {
      const { $schema: _schema, $id: _id, ...rest } = schemas[id] ?? {};
      return [id, rest];
    }),
  );
}

/** A zod schema outside the components (a query parameter), inlined. */
function inlineSchema(schema: z.ZodType): Json {
  const { $schema: _schema, ...rest } = z.toJSONSchema(schema, jsonOptions('input')) as Json;
  return rest;
}

function answerSchema(schema: Answer['schema']): Json {
  if (typeof schema === 'string') return componentRef(schema);
  if ('list' in schema) return { type: 'array', items: componentRef(schema.list) };
  return { oneOf: schema.oneOf.map(answerSchema) };
}

const ERROR_WORDS: Record<ErrorStatus, string> = {
  400: 'the body cannot be read (not JSON, aborted, or not matching its Content-Length)',
  401: 'no API key, or an unknown one',
  403: "another user's asset, partner work with a user key, or the user's domain limit reached",
  404: 'the user or website does not exist (or is not visible to the key)',
  408: 'the request did not arrive in full within 30 s',
  409: 'it already exists, or a user to delete still owns websites',
  413: 'a body over 1 MB, or a form with more than 5,000 parameters',
  415: 'a charset or Content-Encoding the body type does not take',
  422: 'invalid fields (`details` lists each), or a domain that does not resolve',
  429: 'over the per-key request rate: wait Retry-After seconds',
  431: 'request line and headers over 16 KiB',
  500: 'internal error',
  503: 'temporarily unavailable',
};

const retryAfter = (required: boolean) => ({
  'Retry-After': { required, description: 'seconds to wait before retrying', schema: { type: 'string', pattern: '^[0-9]+$' } },
});

/** One shared response per error status: the error body, its `code` narrowed to that status's codes. */
function errorResponses(): Json {
  const statuses = Object.keys(ERROR_CODES_BY_STATUS).map(Number) as ErrorStatus[];
  return Object.fromEntries(
    statuses.map((status) => {
      const schema = {
        allOf: [componentRef('Error'), { type: 'object', properties: { code: { enum: [...ERROR_CODES_BY_STATUS[status]] } } }],
      };
      const headers = status === 429 ? retryAfter(true) : status === 503 ? retryAfter(false) : undefined;
      const response = { description: ERROR_WORDS[status], ...(headers ? { headers } : {}), content: { 'application/json': { schema } } };
      return [`Error${status}`, response];
    }),
  );
}

function parameters(operation: Operation): Json[] {
  const found: Json[] = [];
  for (const name of operation.path.match(/\{(\w+)\}/g) ?? []) {
    const param = name.slice(1, -1);
    const description = param === 'id' ? 'the user id (e-mail-shaped)' : 'the domain, as given when the website was created';
    found.push({ name: param, in: 'path', required: true, description, schema: { type: 'string' } });
  }
  for (const [name, schema] of Object.entries(operation.query?.shape ?? {})) {
    const json = inlineSchema(schema as z.ZodType);
    const { description, ...rest } = json;
    found.push({ name, in: 'query', required: false, ...(description ? { description } : {}), schema: rest });
  }
  return found;
}

/** A form sends a list as one comma-joined field (`ip=a,b`), which OpenAPI calls form style, not exploded. */
function formEncoding(schema: Json | undefined): Json | undefined {
  const properties = (schema?.properties ?? {}) as Record<string, Json>;
  const lists = Object.keys(properties).filter((name) => properties[name]?.type === 'array');
  return lists.length === 0 ? undefined : Object.fromEntries(lists.map((name) => [name, { style: 'form', explode: false }]));
}

function requestBody(body: NonNullable<Operation['body']>, schemas: Record<string, Json>): Json {
  const content: Json = {};
  if (body.json) content['application/json'] = { schema: componentRef(body.json) };
  if (body.form) {
    const encoding = formEncoding(schemas[body.form]);
    content['application/x-www-form-urlencoded'] = { schema: componentRef(body.form), ...(encoding ? { encoding } : {}) };
  }
  return { required: body.required, content };
}

function operationObject(operation: Operation, schemas: Record<string, Json>): Json {
  const responses: Json = {};
  for (const answer of [...operation.answers].sort((a, b) => a.status - b.status)) {
    responses[String(answer.status)] = {
      description: answer.description,
      content: { 'application/json': { schema: answerSchema(answer.schema) } },
    };
  }
  const errors = [...new Set([...operation.errors, ...ALWAYS_POSSIBLE_ERRORS])].sort((a, b) => a - b);
  for (const status of errors) responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  const params = parameters(operation);
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    tags: [operation.path.split('/')[1]],
    ...(operation.origin === 'extension' ? { 'x-extension': 'a sandbox extension that clients use (docs/sandbox.md)' } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(operation.body ? { requestBody: requestBody(operation.body, schemas) } : {}),
    responses,
  };
}

const DESCRIPTION = [
  "The web protection provider's HTTP interface as wpp speaks it and its sandbox implements it.",
  'Described in words in docs/provider-api.md; where the interface leaves something open (answer bodies, error codes, limits,',
  "extensions marked x-extension), this document states the sandbox's choices, recorded in docs/sandbox.md.",
  'Any other path or method under /v1.0 answers 404 (not_found), after the key check (401) and, like every request, the',
  'rate limit (429) and injected faults (500, 503).',
  'Generated from the zod schemas in src/provider/ by `npm run openapi`; do not edit by hand.',
].join(' ');

/** The OpenAPI 3.1 document of the /v1.0 interface. */
export function buildOpenApiDocument(): Json {
  const schemas = { ...componentSchemas(REQUEST_COMPONENTS, 'input'), ...componentSchemas(ANSWER_COMPONENTS, 'output') };
  const paths: Record<string, Json> = {};
  for (const operation of OPERATIONS) {
    const path = (paths[fullPath(operation)] ??= {});
    path[operation.method] = operationObject(operation, schemas);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Web protection provider interface', version: API_VERSION.replace(/^v/, ''), description: DESCRIPTION },
    servers: [
      { url: 'http://127.0.0.1:8080', description: "the provider sandbox's default address; a real provider's base URL replaces it" },
    ],
    security: [{ bearerKey: [] }, { bareKey: [] }],
    tags: [
      { name: 'user', description: 'users: one per customer' },
      { name: 'device', description: 'devices: addresses of a user' },
      { name: 'server', description: 'servers: addresses of a user' },
      { name: 'website', description: "websites behind the provider's protection" },
    ],
    paths,
    components: {
      schemas,
      responses: errorResponses(),
      securitySchemes: {
        bearerKey: { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer <API key>`, as wpp sends it' },
        bareKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: "the key alone, as some of the provider's examples send it",
        },
      },
    },
  };
}
