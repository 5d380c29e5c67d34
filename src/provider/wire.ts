/**
 * The answers of the /v1.0 interface exactly as they travel: what the sandbox sends and what
 * docs/openapi.json publishes. The client reads answers with the tolerant schemas of
 * schemas.ts instead (a real deployment may differ), and a test parses every answer the
 * sandbox gives in the integration tests with both. The sandbox types its answers with these,
 * so the document cannot describe fields the sandbox does not send.
 */
import { z } from 'zod';
import { CERTIFICATE_STATUSES, REPORTED_STATUSES, REQUESTABLE_STATUSES, settingsSchema } from './spec.js';

const timestamp = z.iso.datetime().meta({ description: 'ISO 8601 timestamp, UTC' });
const count = z.number().int().min(0);
const stringList = z.array(z.string());

/** A user as listed: never with its API key. */
export const wireUserSchema = z.strictObject({
  id: z.string().min(1).meta({ description: 'e-mail-shaped user id' }),
  tag: stringList,
  server: stringList.meta({ description: "the addresses of the user's servers" }),
  domain_limit: count.nullable().meta({ description: 'how many websites the user may hold; null: no limit' }),
  websites: count.meta({ description: 'how many websites the user holds' }),
  created_at: timestamp,
});
export type WireUser = z.output<typeof wireUserSchema>;

/** A single user (read, create, change): with the user's API key, a secret. */
export const wireUserWithKeySchema = wireUserSchema.extend({
  api_key: z.string().meta({ description: "the user's own API key (a secret)" }),
});
export type WireUserWithKey = z.output<typeof wireUserWithKeySchema>;

export const wireUserListSchema = z.array(wireUserSchema);

/** A device or a server. */
export const wireAssetSchema = z.strictObject({
  id: z.string(),
  ip: z.string().min(1).meta({ description: 'IPv4 or IPv6 address' }),
  user_id: z.string(),
  name: z.string().nullable(),
  zone: z.string().nullable(),
  tag: z.string().nullable(),
  created_at: timestamp,
});
export type WireAsset = z.output<typeof wireAssetSchema>;

export const wireWebsiteSchema = z.strictObject({
  domain: z.string().min(1),
  user_id: z.string(),
  subdomain: stringList,
  ip: stringList,
  ipv6: stringList,
  tag: stringList,
  status: z.enum(REPORTED_STATUSES).meta({
    description:
      'The sandbox reports setup, pending_dns, online and paused; real deployments may report issuing_certificate or error, ' +
      'and a client should keep any other value as it comes.',
  }),
  requested_status: z.enum(REQUESTABLE_STATUSES).meta({ description: 'the status the caller asked for' }),
  callbackUrl: z.string().nullable(),
  settings: settingsSchema,
  certificate: z.strictObject({ public: z.string() }).nullable().meta({ description: 'the custom certificate chain; never the key' }),
  certificate_status: z.enum(CERTIFICATE_STATUSES),
  dns_verified: z.boolean().meta({ description: "whether the owner's DNS change has been seen" }),
  created_at: timestamp,
  updated_at: timestamp,
});
export type WireWebsite = z.output<typeof wireWebsiteSchema>;

export const wireWebsiteListSchema = z.array(wireWebsiteSchema);

const mitigatedShape = {
  total: count.meta({ description: 'captcha + deny' }),
  captcha: count.meta({ description: 'hits challenged' }),
  deny: count.meta({ description: 'hits denied (the same as blocked)' }),
};

export const wireWebsiteStatisticsSchema = z.strictObject({
  domain: z.string(),
  from: timestamp,
  to: timestamp,
  total: count,
  permitted: count.meta({ description: 'total - blocked' }),
  blocked: count,
  mitigated: z.strictObject({
    ...mitigatedShape,
    by_category: z.record(z.string(), count).meta({ description: 'hits by visitor category' }),
  }),
});
export type WireWebsiteStatistics = z.output<typeof wireWebsiteStatisticsSchema>;

export const wireUserStatisticsSchema = z.strictObject({
  user_id: z.string(),
  websites: count.meta({ description: 'how many websites the figures cover' }),
  total: count,
  permitted: count,
  blocked: count,
  mitigated: z.strictObject(mitigatedShape),
});
export type WireUserStatistics = z.output<typeof wireUserStatisticsSchema>;

/** The query of `GET /v1.0/website/{domain}/statistics`: the client sends dates as ISO 8601 in UTC. */
export const wireStatisticsQuerySchema = z.object({
  from: z.iso.datetime({ offset: true }).optional().meta({ description: 'start of the range, ISO 8601 (hour granularity)' }),
  to: z.iso.datetime({ offset: true }).optional().meta({ description: 'end of the range, ISO 8601; not before from' }),
});

export const wireUserDeletedSchema = z.strictObject({ status: z.literal('ok'), id: z.string() });
export const wireWebsiteDeletedSchema = z.strictObject({ status: z.literal('ok'), domain: z.string() });
export type WireUserDeleted = z.output<typeof wireUserDeletedSchema>;
export type WireWebsiteDeleted = z.output<typeof wireWebsiteDeletedSchema>;

/**
 * The stable error codes by HTTP status. 404 `unknown_version` answers a version prefix other
 * than /v1.0, and 408 and 431 come from the HTTP parser before any route.
 */
export const ERROR_CODES_BY_STATUS = {
  400: ['bad_request'],
  401: ['unauthorized'],
  403: ['forbidden', 'domain_limit_reached'],
  404: ['not_found', 'unknown_version'],
  408: ['request_timeout'],
  409: ['already_exists', 'conflict'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  422: ['validation_failed', 'domain_unresolvable'],
  429: ['rate_limited'],
  431: ['headers_too_large'],
  500: ['internal_error'],
  503: ['unavailable'],
} as const;
export type ErrorStatus = keyof typeof ERROR_CODES_BY_STATUS;
export type WireErrorCode = (typeof ERROR_CODES_BY_STATUS)[ErrorStatus][number];
export const WIRE_ERROR_CODES = Object.values(ERROR_CODES_BY_STATUS).flat() as WireErrorCode[];

/** At most this many entries of an error's `details` are sent; `details_omitted` counts the rest. */
export const MAX_ERROR_DETAILS = 50;

/** Every refusal, whatever its status. */
export const wireErrorSchema = z.strictObject({
  status: z.literal('error'),
  code: z.enum(WIRE_ERROR_CODES as [WireErrorCode, ...WireErrorCode[]]).meta({ description: 'stable; the HTTP status narrows it' }),
  message: z.string(),
  details: z
    .array(z.strictObject({ path: z.string(), message: z.string() }))
    .max(MAX_ERROR_DETAILS)
    .meta({ description: 'one entry per problem found, the first 50' }),
  details_omitted: count.meta({ description: 'problems found beyond those in details' }),
});
export type WireError = z.output<typeof wireErrorSchema>;
