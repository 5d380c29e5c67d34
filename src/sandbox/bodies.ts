import { z } from 'zod';
import {
  callbackUrlSchema,
  certificateSchema,
  domainSchema,
  ipAddressSchema,
  ipListSchema,
  ipv6ListSchema,
  LOADBALANCER_FLAGS,
  REQUESTABLE_STATUSES,
  settingsPatchSchema,
  subdomainListSchema,
  tagListSchema,
  userIdSchema,
} from '../provider/spec.js';
import { wireStatisticsQuerySchema } from '../provider/wire.js';

/**
 * Form bodies arrive in the shapes real clients send: a comma-joined string, repeated keys
 * (an array), or PHP bracket notation (an array, or an object with numeric keys past qs's
 * array limit). All become one string array.
 */
export function formList(value: unknown): unknown {
  if (value === undefined) return undefined;
  if (typeof value === 'string') {
    return value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
  }
  if (Array.isArray(value)) return value.flatMap((item) => (typeof item === 'string' ? (formList(item) as string[]) : [item]));
  if (value !== null && typeof value === 'object' && Object.keys(value).every((key) => /^\d+$/.test(key))) {
    return formList(Object.values(value));
  }
  return value;
}

const TRUE_WORDS = new Set(['true', '1', 'on', 'yes']);
const FALSE_WORDS = new Set(['false', '0', 'off', 'no', '']);

/** Form booleans: true/false/1/0/on/off/yes/no; anything else is left for the schema to refuse. */
export function formBoolean(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const word = value.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return value;
}

const mapObject = (value: unknown, fn: (key: string, item: unknown) => unknown): unknown => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fn(key, item)]));
};

/** Rewrites a form-encoded website body into the JSON shape, so one schema validates both. */
export function normalizeFormWebsite(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  for (const key of ['subdomain', 'ip', 'ipv6', 'tag'] as const) {
    if (key in out) out[key] = formList(out[key]);
  }
  if (out.settings !== undefined) {
    out.settings = mapObject(out.settings, (section, value) => {
      if (section === 'rulesets') return mapObject(value, (_key, item) => formBoolean(item));
      if (section === 'loadbalancer') {
        return mapObject(value, (key, item) => ((LOADBALANCER_FLAGS as readonly string[]).includes(key) ? formBoolean(item) : item));
      }
      return value;
    });
  }
  return out;
}

/** Every website field, all optional: create adds the `domain` requirement. Unknown keys are refused. */
const websiteFields = {
  domain: domainSchema,
  user_id: userIdSchema,
  subdomain: subdomainListSchema,
  ip: ipListSchema,
  ipv6: ipv6ListSchema,
  tag: tagListSchema,
  status: z.enum(REQUESTABLE_STATUSES),
  callbackUrl: z.union([callbackUrlSchema, z.literal('')]),
  certificate: certificateSchema,
  settings: settingsPatchSchema,
};

export const websiteUpdateBodySchema = z.strictObject(websiteFields).partial();
export const websiteCreateBodySchema = websiteUpdateBodySchema.required({ domain: true });

export const userCreateBodySchema = z.object({ id: userIdSchema });

export const userUpdateBodySchema = z.strictObject({
  domain_limit: z.union([z.number().int().min(0), z.null()]).optional(),
  tag: tagListSchema.optional(),
});

/** Normalises a form-encoded user update (numbers and lists arrive as strings). */
export function normalizeFormUserUpdate(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  if (typeof out.domain_limit === 'string') {
    const text = out.domain_limit.trim();
    out.domain_limit = text === '' || text === 'null' ? null : /^\d+$/.test(text) ? Number(text) : text;
  }
  if ('tag' in out) out.tag = formList(out.tag);
  return out;
}

const optionalText = z.string().trim().max(255).optional();

/** Devices and servers: identified by IP; devices may name the field `address`. */
export const assetBodySchema = z
  .object({
    ip: ipAddressSchema.optional(),
    address: ipAddressSchema.optional(),
    user_id: userIdSchema.optional(),
    name: optionalText,
    zone: optionalText,
    tag: optionalText,
  })
  .refine((body) => body.ip !== undefined || body.address !== undefined, {
    path: ['ip'],
    message: 'an IPv4 or IPv6 address is required',
  })
  .transform(({ address, ip, ...rest }) => ({ ...rest, ip: (ip ?? address) as string }));

const trafficFields = {
  hits: z.number().int().min(0).max(1e12),
  blocked: z.number().int().min(0).default(0),
  mitigated: z.number().int().min(0).default(0),
  category: z.string().trim().max(64).default(''),
};
const trafficAddsUp = (body: { hits: number; blocked: number; mitigated: number }) => body.blocked + body.mitigated <= body.hits;
const trafficMessage = { message: 'blocked + mitigated cannot exceed hits', path: ['hits'] };

export const trafficBodySchema = z.strictObject(trafficFields).refine(trafficAddsUp, trafficMessage);

export const bulkTrafficBodySchema = z
  .array(z.strictObject({ domain: domainSchema, ...trafficFields }).refine(trafficAddsUp, trafficMessage))
  .max(100_000);

export const statisticsQuerySchema = wireStatisticsQuerySchema.refine((q) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to), {
  message: 'from must not be after to',
  path: ['from'],
});

export const nxdomainBodySchema = z.strictObject({ domains: z.array(domainSchema).min(1).max(10_000) });

/** At most this many websites per `POST /_sandbox/websites/bulk`. */
export const BULK_WEBSITES_MAX = 200_000;

/**
 * `POST /_sandbox/websites/bulk`: many websites of one existing user at once (seeding for
 * benchmarks and large tests). `ip` defaults to the documentation address 203.0.113.10.
 */
export const bulkWebsitesBodySchema = z.strictObject({
  user_id: userIdSchema,
  domains: z.array(domainSchema).min(1).max(BULK_WEBSITES_MAX),
  ip: ipListSchema.refine((ips) => ips.length > 0, { message: 'at least one origin address is required' }).default(['203.0.113.10']),
  status: z.enum(['online', 'paused']).default('online'),
  hits: z.number().int().min(0).max(1e12).default(0),
});
