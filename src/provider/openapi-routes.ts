/**
 * The /v1.0 operations as a table: path, method, request body and query schemas, the answers
 * with their exact wire schema and the client's tolerant parser, and the error statuses each
 * can answer. docs/openapi.json is generated from it (openapi.ts); the integration tests check
 * every answer of the sandbox against the document and parse it with `client`.
 */
import { z } from 'zod';
import {
  addDeviceSchema,
  addServerSchema,
  assetSchema,
  createUserSchema,
  updateUserSchema,
  userListSchema,
  userSchema,
  userStatisticsSchema,
  websiteCreateFormSchema,
  websiteCreateSchema,
  websiteSchema,
  websiteStatisticsSchema,
  websiteStatusUpdateSchema,
  websiteUpdateSchema,
} from './schemas.js';
import { API_VERSION, domainSchema, settingsPatchSchema, settingsSchema } from './spec.js';
import {
  wireAssetSchema,
  wireErrorSchema,
  wireStatisticsQuerySchema,
  wireUserDeletedSchema,
  wireUserSchema,
  wireUserStatisticsSchema,
  wireUserWithKeySchema,
  wireWebsiteDeletedSchema,
  wireWebsiteSchema,
  wireWebsiteStatisticsSchema,
  type ErrorStatus,
} from './wire.js';

/** Request bodies and queries, published as they are sent (zod's input side). */
export const REQUEST_COMPONENTS = {
  CreateUser: createUserSchema,
  UpdateUser: updateUserSchema,
  AddDevice: addDeviceSchema,
  AddServer: addServerSchema,
  WebsiteCreate: websiteCreateSchema,
  WebsiteCreateForm: websiteCreateFormSchema,
  WebsiteUpdate: websiteUpdateSchema,
  WebsiteStatusUpdate: websiteStatusUpdateSchema,
  SettingsPatch: settingsPatchSchema,
} as const;
export type RequestComponent = keyof typeof REQUEST_COMPONENTS;

/** Answers, published exactly as the sandbox sends them. */
export const ANSWER_COMPONENTS = {
  User: wireUserSchema,
  UserWithKey: wireUserWithKeySchema,
  UserDeleted: wireUserDeletedSchema,
  UserStatistics: wireUserStatisticsSchema,
  Asset: wireAssetSchema,
  Website: wireWebsiteSchema,
  WebsiteDeleted: wireWebsiteDeletedSchema,
  WebsiteStatistics: wireWebsiteStatisticsSchema,
  Settings: settingsSchema,
  Error: wireErrorSchema,
} as const;
export type AnswerComponent = keyof typeof ANSWER_COMPONENTS;

export interface Answer {
  status: 200 | 201;
  description: string;
  /** The wire schema (a component), or a list of them. */
  schema: AnswerComponent | { list: AnswerComponent } | { oneOf: (AnswerComponent | { list: AnswerComponent })[] };
  /** The client's tolerant parser of this answer, when the client reads it. */
  client?: z.ZodType;
}

export interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  /** The path after the version, in OpenAPI's template form. */
  path: string;
  operationId: string;
  summary: string;
  /** `interface` as docs/provider-api.md states it; `extension` where the sandbox chose (docs/sandbox.md). */
  origin: 'interface' | 'extension';
  query?: z.ZodObject;
  body?: { required: boolean; json?: RequestComponent; form?: RequestComponent };
  answers: Answer[];
  errors: ErrorStatus[];
}

/** Every /v1.0 request can meet these: the injected faults (500, 503, 429), the key check and the rate limit. */
export const ALWAYS_POSSIBLE_ERRORS: ErrorStatus[] = [401, 429, 500, 503];
/** A request with a body can also be refused for the body itself. */
const BODY_ERRORS: ErrorStatus[] = [400, 413, 415, 422];

const websiteLookupQuery = z.object({
  domain: domainSchema.optional().meta({ description: 'the website to read; without it, every website the key may see' }),
});

const user = (path = '') => `/user/{id}${path}`;
const website = (path = '') => `/website/{domain}${path}`;

export const OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/user',
    operationId: 'listUsers',
    summary: 'The users the key may manage',
    origin: 'interface',
    answers: [{ status: 200, description: 'the users, without their keys', schema: { list: 'User' }, client: userListSchema }],
    errors: [],
  },
  {
    method: 'post',
    path: '/user',
    operationId: 'createUser',
    summary: 'Creates a user (partner key); without `id` the users are listed as by GET',
    origin: 'interface',
    body: { required: false, form: 'CreateUser', json: 'CreateUser' },
    answers: [
      { status: 201, description: 'the new user with its key', schema: 'UserWithKey', client: userSchema },
      { status: 200, description: 'no `id` sent: the users, as GET lists them', schema: { list: 'User' }, client: userListSchema },
    ],
    errors: [...BODY_ERRORS, 403, 409],
  },
  {
    method: 'get',
    path: user(),
    operationId: 'getUser',
    summary: 'One user, with its API key',
    origin: 'interface',
    answers: [{ status: 200, description: 'the user with its key', schema: 'UserWithKey', client: userSchema }],
    errors: [403, 404],
  },
  {
    method: 'put',
    path: user(),
    operationId: 'updateUser',
    summary: "Changes a user's domain limit or tags (partner key)",
    origin: 'extension',
    body: { required: true, json: 'UpdateUser', form: 'UpdateUser' },
    answers: [{ status: 200, description: 'the changed user with its key', schema: 'UserWithKey', client: userSchema }],
    errors: [...BODY_ERRORS, 403, 404],
  },
  {
    method: 'delete',
    path: user(),
    operationId: 'deleteUser',
    summary: 'Deletes a user who owns no website (partner key)',
    origin: 'extension',
    answers: [{ status: 200, description: 'deleted', schema: 'UserDeleted' }],
    errors: [403, 404, 409],
  },
  {
    method: 'get',
    path: user('/statistics'),
    operationId: 'getUserStatistics',
    summary: "Hits summed over the user's websites",
    origin: 'extension',
    answers: [{ status: 200, description: 'the figures', schema: 'UserStatistics', client: userStatisticsSchema }],
    errors: [403, 404],
  },
  {
    method: 'post',
    path: '/device',
    operationId: 'addDevice',
    summary: 'Adds a device (an address) to a user, the key owner by default',
    origin: 'interface',
    body: { required: true, form: 'AddDevice', json: 'AddDevice' },
    answers: [{ status: 201, description: 'the new device', schema: 'Asset', client: assetSchema }],
    errors: [...BODY_ERRORS, 403, 404, 409],
  },
  {
    method: 'post',
    path: '/server',
    operationId: 'addServer',
    summary: 'Adds a server (an address) to a user, the key owner by default',
    origin: 'interface',
    body: { required: true, form: 'AddServer', json: 'AddServer' },
    answers: [{ status: 201, description: 'the new server', schema: 'Asset', client: assetSchema }],
    errors: [...BODY_ERRORS, 403, 404, 409],
  },
  {
    method: 'get',
    path: '/website',
    operationId: 'lookupWebsite',
    summary: 'One website by `domain` with all its settings; without `domain`, the list (extension)',
    origin: 'interface',
    query: websiteLookupQuery,
    answers: [
      {
        status: 200,
        description: 'the website (with `domain`), or every website the key may see (without)',
        schema: { oneOf: ['Website', { list: 'Website' }] },
        client: z.union([websiteSchema, z.array(websiteSchema)]),
      },
    ],
    errors: [403, 404],
  },
  {
    method: 'post',
    path: '/website',
    operationId: 'createWebsite',
    summary: 'Creates a website; its domain must exist and resolve',
    origin: 'interface',
    body: { required: true, json: 'WebsiteCreate', form: 'WebsiteCreateForm' },
    answers: [{ status: 201, description: 'the new website', schema: 'Website', client: websiteSchema }],
    errors: [...BODY_ERRORS, 403, 404, 409],
  },
  {
    method: 'get',
    path: website(),
    operationId: 'getWebsite',
    summary: 'One website by path',
    origin: 'extension',
    answers: [{ status: 200, description: 'the website', schema: 'Website', client: websiteSchema }],
    errors: [403, 404],
  },
  {
    method: 'put',
    path: website(),
    operationId: 'updateWebsite',
    summary: 'Changes a website: a partial JSON body, or the form `status` to pause or resume',
    origin: 'interface',
    body: { required: true, json: 'WebsiteUpdate', form: 'WebsiteStatusUpdate' },
    answers: [{ status: 200, description: 'the changed website', schema: 'Website', client: websiteSchema }],
    errors: [...BODY_ERRORS, 403, 404],
  },
  {
    method: 'delete',
    path: website(),
    operationId: 'deleteWebsite',
    summary: 'Deletes a website',
    origin: 'extension',
    answers: [{ status: 200, description: 'deleted', schema: 'WebsiteDeleted' }],
    errors: [403, 404],
  },
  {
    method: 'get',
    path: website('/statistics'),
    operationId: 'getWebsiteStatistics',
    summary: "The website's hits, cumulative or within from/to",
    origin: 'interface',
    query: wireStatisticsQuerySchema,
    answers: [{ status: 200, description: 'the figures', schema: 'WebsiteStatistics', client: websiteStatisticsSchema }],
    errors: [403, 404, 422],
  },
];

/** The full path of an operation, version included. */
export const fullPath = (operation: Pick<Operation, 'path'>) => `/${API_VERSION}${operation.path}`;
