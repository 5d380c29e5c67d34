/**
 * Request schemas (strict: a request is checked completely before anything is sent) and
 * response schemas (tolerant: a real deployment may add fields, omit optional ones, send
 * arrays comma-joined or numbers as strings, and report statuses the spec does not list).
 */
import { z } from 'zod';
import {
  REQUESTABLE_STATUSES,
  RULE_CATEGORIES,
  RULESETS,
  LOADBALANCER_FLAGS,
  callbackUrlSchema,
  certificateSchema,
  domainSchema,
  ipAddressSchema,
  ipListSchema,
  ipv6ListSchema,
  settingsPatchSchema,
  subdomainListSchema,
  tagSchema,
  userIdSchema,
  type LoadbalancerFlag,
  type RuleCategory,
  type Ruleset,
} from './spec.js';

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

/** Commas are refused because form-encoded arrays are comma-joined: `tag=a,b` is two tags. */
export const requestTagSchema = tagSchema.refine((tag) => !tag.includes(','), {
  message: 'tags may not contain commas',
});
export const requestTagListSchema = z.array(requestTagSchema).transform((tags) => [...new Set(tags)]);

/**
 * Runs a cross-field check even when other fields are bad, so one error lists every problem;
 * only the fields the check reads must have parsed.
 */
function whenValid(...keys: string[]) {
  return {
    // Raw issues of unknown keys carry no path yet.
    when: (payload: { issues: readonly { path?: readonly PropertyKey[] }[] }) =>
      payload.issues.every((issue) => !keys.includes(String(issue.path?.[0]))),
  };
}

const labelSchema = z.string().trim().min(1, 'may not be empty').max(255, 'is at most 255 characters');

export const websiteStatusRequestSchema = z.enum(REQUESTABLE_STATUSES);

export const createUserSchema = z.strictObject({ id: userIdSchema });
export type CreateUser = z.input<typeof createUserSchema>;

export const updateUserSchema = z
  .strictObject({
    domain_limit: z.number().int('must be a whole number').min(0, 'may not be negative').nullable().optional(),
    tag: requestTagListSchema.optional(),
  })
  .refine((patch) => patch.domain_limit !== undefined || patch.tag !== undefined, {
    message: 'give at least one of domain_limit and tag',
  });
export type UpdateUser = z.input<typeof updateUserSchema>;

const assetShape = {
  ip: ipAddressSchema,
  user_id: userIdSchema.optional(),
  name: labelSchema.optional(),
  zone: labelSchema.optional(),
  tag: requestTagSchema.optional(),
};

export const addDeviceSchema = z.strictObject(assetShape);
export type AddDevice = z.input<typeof addDeviceSchema>;

export const addServerSchema = z.strictObject(assetShape);
export type AddServer = z.input<typeof addServerSchema>;

export const websiteCreateSchema = z
  .strictObject({
    domain: domainSchema,
    user_id: userIdSchema.optional(),
    subdomain: subdomainListSchema.default([]),
    ip: ipListSchema.default([]),
    ipv6: ipv6ListSchema.optional(),
    tag: requestTagListSchema.default([]),
    status: websiteStatusRequestSchema.default('online'),
    callbackUrl: callbackUrlSchema.optional(),
    certificate: certificateSchema.optional(),
    settings: settingsPatchSchema.optional(),
  })
  .superRefine(
    (website, ctx) => {
      if (website.ip.length === 0 && (website.ipv6 ?? []).length === 0) {
        ctx.addIssue({ code: 'custom', path: ['ip'], message: 'at least one origin address is required (ip or ipv6)' });
      }
      // The provider defaults the issuer to acme, so on create a missing issuer means acme.
      const issuer = website.settings?.loadbalancer?.certs_issuer ?? 'acme';
      if (issuer === 'custom' && !website.certificate) {
        ctx.addIssue({ code: 'custom', path: ['certificate'], message: 'certs_issuer "custom" requires a certificate' });
      }
      if (issuer !== 'custom' && website.certificate) {
        ctx.addIssue({
          code: 'custom',
          path: ['certificate'],
          message: 'a certificate is only accepted with settings.loadbalancer.certs_issuer "custom"',
        });
      }
    },
    whenValid('ip', 'ipv6', 'certificate', 'settings'),
  );
export type WebsiteCreate = z.input<typeof websiteCreateSchema>;
export type WebsiteCreateBody = z.output<typeof websiteCreateSchema>;

export const websiteCreateFormSchema = z.strictObject({
  user_id: userIdSchema,
  domain: domainSchema,
  subdomain: subdomainListSchema.default([]),
  ip: ipListSchema.refine((ips) => ips.length > 0, { message: 'at least one origin address is required' }),
  tag: requestTagListSchema.default([]),
  callbackUrl: callbackUrlSchema.optional(),
});
export type WebsiteCreateForm = z.input<typeof websiteCreateFormSchema>;

const websitePatchShape = {
  /** Moving a website to another user: partner keys only. */
  user_id: userIdSchema.optional(),
  subdomain: subdomainListSchema.optional(),
  ip: ipListSchema.optional(),
  ipv6: ipv6ListSchema.optional(),
  tag: requestTagListSchema.optional(),
  status: websiteStatusRequestSchema.optional(),
  callbackUrl: callbackUrlSchema.optional(),
  certificate: certificateSchema.optional(),
  settings: settingsPatchSchema.optional(),
};

/** The fields an update may change; `domain` comes from the path argument. */
export const websitePatchSchema = z.strictObject(websitePatchShape);
export type WebsitePatch = z.input<typeof websitePatchSchema>;

export const websiteUpdateSchema = z.strictObject({ domain: domainSchema, ...websitePatchShape }).superRefine(
  (update, ctx) => {
    const changed = Object.entries(update).filter(([key, value]) => key !== 'domain' && value !== undefined);
    if (changed.length === 0) {
      ctx.addIssue({ code: 'custom', path: [], message: 'an update must change at least one field besides domain' });
    }
    // Only an explicit acme is refused: without an issuer the stored one (maybe custom) applies.
    if (update.certificate && update.settings?.loadbalancer?.certs_issuer === 'acme') {
      ctx.addIssue({
        code: 'custom',
        path: ['certificate'],
        message: 'a certificate is only accepted with settings.loadbalancer.certs_issuer "custom"',
      });
    }
  },
  whenValid('certificate', 'settings'),
);
export type WebsiteUpdate = z.input<typeof websiteUpdateSchema>;

export const websiteStatusUpdateSchema = z.strictObject({ status: websiteStatusRequestSchema });
export type WebsiteStatusUpdate = z.input<typeof websiteStatusUpdateSchema>;

const dateLikeSchema = z.union([z.date(), z.string().trim().min(1)]).transform((value, ctx) => {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) {
    ctx.addIssue({ code: 'custom', message: 'must be a date or an ISO 8601 timestamp' });
    return z.NEVER;
  }
  return date.toISOString();
});

export const statisticsQuerySchema = z.strictObject({
  from: dateLikeSchema.optional(),
  to: dateLikeSchema.optional(),
});
export type StatisticsQuery = z.input<typeof statisticsQuerySchema>;

// ---------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return undefined;
}

function toStringList(value: unknown): string[] {
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : [];
  return items
    .map((item: unknown) => (typeof item === 'string' ? item.trim() : typeof item === 'number' ? String(item) : ''))
    .filter((item) => item !== '');
}

function toBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === '1' || value === 'true' || value === 'on') return true;
  if (value === 0 || value === '0' || value === 'false' || value === 'off') return false;
  return undefined;
}

function toOptionalString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

const looseStringList = z.unknown().optional().transform(toStringList);
const looseOptionalString = z.unknown().optional().transform(toOptionalString);
const looseCount = z
  .unknown()
  .optional()
  .transform((value) => toNumber(value) ?? 0);
const looseOptionalNumber = z.unknown().optional().transform(toNumber);
const requiredString = z.preprocess((value) => toOptionalString(value)?.trim(), z.string().min(1));

function objectOrEmpty(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Drops keys whose value was absent or unusable, so a partial object stays partial. */
function compact<T extends Record<string, unknown>>(record: T): Partial<{ [K in keyof T]: Exclude<T[K], undefined> }> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as Partial<{
    [K in keyof T]: Exclude<T[K], undefined>;
  }>;
}

/**
 * Settings as reported: every part may be missing. Rule policies are kept as any string so a
 * policy the provider adds later is shown rather than lost.
 */
export const settingsResponseSchema = z
  .unknown()
  .optional()
  .transform((value) => {
    const settings = objectOrEmpty(value);
    const rules = objectOrEmpty(settings.rules);
    const rulesets = objectOrEmpty(settings.rulesets);
    const loadbalancer = objectOrEmpty(settings.loadbalancer);
    return {
      rules: compact(Object.fromEntries(RULE_CATEGORIES.map((c) => [c, toOptionalString(rules[c])]))) as Partial<
        Record<RuleCategory, string>
      >,
      rulesets: compact(Object.fromEntries(RULESETS.map((r) => [r, toBoolean(rulesets[r])]))) as Partial<Record<Ruleset, boolean>>,
      loadbalancer: {
        ...(compact(Object.fromEntries(LOADBALANCER_FLAGS.map((f) => [f, toBoolean(loadbalancer[f])]))) as Partial<
          Record<LoadbalancerFlag, boolean>
        >),
        ...compact({ certs_issuer: toOptionalString(loadbalancer.certs_issuer) }),
      },
    };
  });
export type SettingsResponse = z.output<typeof settingsResponseSchema>;

export const websiteSchema = z.object({
  domain: requiredString.transform((domain) => domain.toLowerCase()),
  user_id: looseOptionalString,
  subdomain: looseStringList,
  ip: looseStringList,
  ipv6: looseStringList,
  tag: looseStringList,
  // Any string: statuses outside the documented list are shown as they come.
  status: looseOptionalString.transform((status) => status ?? 'unknown'),
  requested_status: looseOptionalString,
  callbackUrl: looseOptionalString,
  certificate: z
    .unknown()
    .optional()
    .transform((value) => {
      const certificate = objectOrEmpty(value);
      const publicBundle = toOptionalString(certificate.public);
      return publicBundle === undefined ? undefined : { public: publicBundle };
    }),
  // Optional (the sandbox's `none`/`issuing`/`issued`/`custom`); unknown values kept as they come.
  certificate_status: looseOptionalString,
  settings: settingsResponseSchema,
  created_at: looseOptionalString,
  updated_at: looseOptionalString,
});
/** A website as the provider reports it; the plugin's own record of one is `Website` (core/types.ts). */
export type ProviderWebsite = z.output<typeof websiteSchema>;

export const userSchema = z.object({
  id: requiredString,
  api_key: looseOptionalString,
  tag: looseStringList,
  server: looseStringList,
  // null means "no limit", which is also what a missing field means.
  domain_limit: z
    .unknown()
    .optional()
    .transform((value) => toNumber(value) ?? null),
  created_at: looseOptionalString,
});
export type User = z.output<typeof userSchema>;

function unwrapList(value: unknown, keys: string[]): unknown {
  if (Array.isArray(value)) return value;
  const record = objectOrEmpty(value);
  for (const key of keys) {
    if (Array.isArray(record[key])) return record[key];
  }
  return value;
}

export const userListSchema = z.preprocess((value) => unwrapList(value, ['users', 'data', 'items']), z.array(userSchema));

/** Devices and servers: the spec does not show the record, so everything but the IP is optional. */
export const assetSchema = z.preprocess(
  (value) => {
    const record = objectOrEmpty(value);
    return record.ip === undefined && record.address !== undefined ? { ...record, ip: record.address } : value;
  },
  z.object({
    ip: requiredString,
    user_id: looseOptionalString,
    name: looseOptionalString,
    zone: looseOptionalString,
    tag: looseStringList,
  }),
);
export type Device = z.output<typeof assetSchema>;
export type Server = z.output<typeof assetSchema>;

const mitigatedDetailSchema = z.object({
  total: looseOptionalNumber,
  captcha: looseCount,
  deny: looseCount,
  by_category: z
    .unknown()
    .optional()
    .transform((value) => {
      const entries = Object.entries(objectOrEmpty(value)).map(([category, raw]) => {
        // A category may be a bare count or a {captcha, deny, total} breakdown.
        const direct = toNumber(raw);
        if (direct !== undefined) return [category, direct] as const;
        const breakdown = objectOrEmpty(raw);
        const total = toNumber(breakdown.total) ?? (toNumber(breakdown.captcha) ?? 0) + (toNumber(breakdown.deny) ?? 0);
        return [category, total] as const;
      });
      return Object.fromEntries(entries) as Record<string, number>;
    }),
});

const statisticsShape = {
  domain: looseOptionalString,
  from: looseOptionalString,
  to: looseOptionalString,
  total: looseCount,
  permitted: looseOptionalNumber,
  blocked: looseCount,
  mitigated: z.unknown().optional(),
};

/** Statistics as the plugin uses them: `from` and `to` only when the provider sent them. */
export interface NormalisedStatistics {
  from?: string;
  to?: string;
  total: number;
  permitted: number;
  blocked: number;
  mitigated: number;
  mitigatedDetail?: MitigatedDetail;
}

/**
 * Built property by property rather than by spreading `compact()`'s partial object into a
 * literal: that spread made V8 allocate in its old generation on every call (about 200 bytes
 * a record, freed only by a full collection), and this runs once per website per sync.
 */
function normaliseStatistics(
  raw: z.output<z.ZodObject<typeof statisticsShape>>,
  domain?: string,
): NormalisedStatistics & { domain?: string } {
  let mitigated = toNumber(raw.mitigated);
  let mitigatedDetail: MitigatedDetail | undefined;
  if (mitigated === undefined && typeof raw.mitigated === 'object' && raw.mitigated !== null) {
    const detail = mitigatedDetailSchema.parse(raw.mitigated);
    mitigated = detail.total ?? detail.captcha + detail.deny;
    mitigatedDetail = { total: mitigated, captcha: detail.captcha, deny: detail.deny, byCategory: detail.by_category };
  }
  const statistics = (domain === undefined ? {} : { domain }) as NormalisedStatistics & { domain?: string };
  if (raw.from !== undefined) statistics.from = raw.from;
  if (raw.to !== undefined) statistics.to = raw.to;
  statistics.total = raw.total;
  statistics.permitted = raw.permitted ?? Math.max(0, raw.total - raw.blocked);
  statistics.blocked = raw.blocked;
  statistics.mitigated = mitigated ?? 0;
  if (mitigatedDetail) statistics.mitigatedDetail = mitigatedDetail;
  return statistics;
}

export interface MitigatedDetail {
  total: number;
  captcha: number;
  deny: number;
  byCategory: Record<string, number>;
}

/**
 * Website statistics, normalised: `mitigated` is always a number (the provider may send a
 * breakdown object), and `permitted` is derived from total - blocked when missing.
 */
export const websiteStatisticsSchema = z
  .object({ ...statisticsShape, domain: requiredString.transform((domain) => domain.toLowerCase()) })
  .transform((raw) => normaliseStatistics(raw, raw.domain) as NormalisedStatistics & { domain: string });
export type WebsiteStatistics = z.output<typeof websiteStatisticsSchema>;

/**
 * Per-user statistics (sandbox extension): the website shape summed over the user's websites.
 * `websites` may be a count or a list of per-website statistics; both are kept in usable form.
 */
export const userStatisticsSchema = z
  .object({
    ...statisticsShape,
    user_id: looseOptionalString,
    id: looseOptionalString,
    websites: z.unknown().optional(),
  })
  .transform((raw) => {
    const list = Array.isArray(raw.websites)
      ? raw.websites.flatMap((entry: unknown) => {
          const parsed = websiteStatisticsSchema.safeParse(entry);
          return parsed.success ? [parsed.data] : [];
        })
      : undefined;
    const websiteCount = Array.isArray(raw.websites) ? raw.websites.length : toNumber(raw.websites);
    return {
      ...compact({ userId: raw.user_id ?? raw.id, websiteCount }),
      ...normaliseStatistics(raw),
      ...(list && list.length > 0 ? { websites: list } : {}),
    };
  });
export type UserStatistics = z.output<typeof userStatisticsSchema>;

/** The answer to DELETE /v1.0/website/{domain}: not specified; anything that parses as JSON (or nothing) is taken as done. */
export const websiteDeletedSchema = z.unknown();
