/**
 * The vocabulary of the provider's /v1.0 interface (spec sections 2 and 3): field names,
 * allowed values and the validation of single values (domains, labels, IP addresses, ids).
 * Both the client and the sandbox build on it so the two cannot drift apart on what a
 * valid domain or rule category is. Imports nothing from the rest of src/.
 */
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { z } from 'zod';

export const API_VERSION = 'v1.0';

export const RULE_CATEGORIES = [
  'content_scrapers',
  'emulated_humans',
  'humans',
  'search_engines',
  'security_issues',
  'services_and_payments',
  'social_networks',
  'suspicious_behaviour',
] as const;
export type RuleCategory = (typeof RULE_CATEGORIES)[number];

export const RULE_POLICIES = ['deny', 'grant', 'captcha'] as const;
export type RulePolicy = (typeof RULE_POLICIES)[number];

export const RULESETS = ['bitrix', 'cpanel', 'dokuwiki', 'drupal', 'joomla', 'nextcloud', 'prestashop', 'wordpress', 'xenforo'] as const;
export type Ruleset = (typeof RULESETS)[number];

export const LOADBALANCER_FLAGS = [
  'upstreams_use_https',
  'enable_http3',
  'force_https',
  'cache_static_files',
  'cache_dynamic_pages',
  'ddos_protection',
  'ddos_protection_advanced',
  'bot_protection',
  'force_subdomains_redirect',
] as const;
export type LoadbalancerFlag = (typeof LOADBALANCER_FLAGS)[number];

export const CERTS_ISSUERS = ['acme', 'custom'] as const;
export type CertsIssuer = (typeof CERTS_ISSUERS)[number];

/** Statuses a caller may request. `setup` is the extra value public clients send. */
export const REQUESTABLE_STATUSES = ['online', 'paused', 'setup'] as const;
export type RequestableStatus = (typeof REQUESTABLE_STATUSES)[number];

/**
 * Statuses the client knows. The spec shows only `online` and `paused`; the others are the
 * sandbox's documented choice for "not shown" (docs/sandbox.md), plus `issuing_certificate`,
 * which real deployments may report while a certificate is issued (the sandbox shows
 * issuance in `certificate_status` instead). Clients must accept any string, since a real
 * deployment may report values outside this list.
 */
export const REPORTED_STATUSES = ['setup', 'pending_dns', 'online', 'paused', 'issuing_certificate', 'error'] as const;
export type ReportedStatus = (typeof REPORTED_STATUSES)[number];

/** The statuses the sandbox itself reports: never `issuing_certificate` (nor `error`). */
export type SandboxStatus = Exclude<ReportedStatus, 'issuing_certificate' | 'error'>;

/**
 * A website's `certificate_status` (sandbox extension, see docs/sandbox.md): `none` (ACME, DNS not
 * verified yet), `issuing` (ACME issuance under way), `issued` (ACME certificate in place),
 * `custom` (the certificate sent in `certificate` is used). Clients keep unknown values as-is.
 */
export const CERTIFICATE_STATUSES = ['none', 'issuing', 'issued', 'custom'] as const;
export type CertificateStatus = (typeof CERTIFICATE_STATUSES)[number];

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Normalises a domain name the way the provider keys websites: trimmed, trailing dot removed,
 * internationalised names converted to punycode, lower-cased. Returns null when the result is
 * not a valid host name of at least two labels with a non-numeric top-level label.
 */
export function normalizeDomain(input: string): string | null {
  const trimmed = input.trim().replace(/\.$/, '');
  if (trimmed === '' || trimmed.length > 253 || /[\s/:@?#]/.test(trimmed)) return null;
  const ascii = domainToASCII(trimmed).toLowerCase();
  if (ascii === '' || ascii.length > 253) return null;
  const labels = ascii.split('.');
  if (labels.length < 2) return null;
  if (!labels.every((label) => LABEL.test(label))) return null;
  const tld = labels[labels.length - 1] ?? '';
  if (/^[0-9]+$/.test(tld)) return null;
  return ascii;
}

/**
 * Normalises a subdomain label list entry (`www`, `shop.eu`): relative to the website's
 * domain, one or more labels, lower-cased, IDN converted to punycode.
 */
export function normalizeSubdomain(input: string): string | null {
  const trimmed = input.trim().replace(/\.$/, '');
  if (trimmed === '' || trimmed.length > 253 || /[\s/:@?#]/.test(trimmed)) return null;
  const ascii = /^[\x20-\x7e]*$/.test(trimmed)
    ? trimmed.toLowerCase()
    : domainToASCII(`${trimmed}.example`)
        .toLowerCase()
        .replace(/\.example$/, '');
  if (ascii === '') return null;
  return ascii.split('.').every((label) => LABEL.test(label)) ? ascii : null;
}

export const domainSchema = z.string().transform((value, ctx) => {
  const domain = normalizeDomain(value);
  if (domain === null) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a valid domain name` });
    return z.NEVER;
  }
  return domain;
});

export const subdomainLabelSchema = z.string().transform((value, ctx) => {
  const label = normalizeSubdomain(value);
  if (label === null) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a valid subdomain label` });
    return z.NEVER;
  }
  return label;
});

/** Subdomain lists are sets: duplicates collapse, order of first appearance is kept. */
export const subdomainListSchema = z.array(subdomainLabelSchema).transform((labels) => [...new Set(labels)]);

export const ipAddressSchema = z
  .string()
  .trim()
  .refine((value) => isIP(value) !== 0, { message: 'must be an IPv4 or IPv6 address' })
  .transform((value) => value.toLowerCase());

export const ipv6AddressSchema = z
  .string()
  .trim()
  .refine((value) => isIP(value) === 6, { message: 'must be an IPv6 address' })
  .transform((value) => value.toLowerCase());

export const ipListSchema = z.array(ipAddressSchema).transform((ips) => [...new Set(ips)]);
export const ipv6ListSchema = z.array(ipv6AddressSchema).transform((ips) => [...new Set(ips)]);

export const tagSchema = z.string().trim().min(1, 'tags may not be empty').max(100, 'tags are at most 100 characters');
export const tagListSchema = z.array(tagSchema).transform((tags) => [...new Set(tags)]);

/** The user id is e-mail shaped (spec 2.1). Stored and compared lower-cased. */
export const userIdSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, 'user ids are at most 254 characters')
  .refine((value) => /^[^\s@]+@[^\s@]+$/.test(value) && normalizeDomain(value.split('@')[1] ?? '') !== null, {
    message: 'must be an e-mail-shaped id (name@domain.tld)',
  });

export const rulePolicySchema = z.enum(RULE_POLICIES);

export const rulesSchema = z.strictObject(
  Object.fromEntries(RULE_CATEGORIES.map((category) => [category, rulePolicySchema])) as Record<RuleCategory, typeof rulePolicySchema>,
);
export type Rules = z.infer<typeof rulesSchema>;

export const rulesetsSchema = z.strictObject(
  Object.fromEntries(RULESETS.map((name) => [name, z.boolean()])) as Record<Ruleset, z.ZodBoolean>,
);
export type Rulesets = z.infer<typeof rulesetsSchema>;

export const loadbalancerSchema = z.strictObject({
  ...(Object.fromEntries(LOADBALANCER_FLAGS.map((name) => [name, z.boolean()])) as Record<LoadbalancerFlag, z.ZodBoolean>),
  certs_issuer: z.enum(CERTS_ISSUERS),
});
export type Loadbalancer = z.infer<typeof loadbalancerSchema>;

export const settingsSchema = z.strictObject({
  rules: rulesSchema,
  rulesets: rulesetsSchema,
  loadbalancer: loadbalancerSchema,
});
export type Settings = z.infer<typeof settingsSchema>;

/** A partial settings object, as accepted by create (missing keys take defaults) and update. */
export const settingsPatchSchema = z.strictObject({
  rules: rulesSchema.partial().optional(),
  rulesets: rulesetsSchema.partial().optional(),
  loadbalancer: loadbalancerSchema.partial().optional(),
});
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

export const certificateSchema = z.strictObject({
  public: z.string().min(1, 'the public certificate bundle is required'),
  private: z.string().min(1, 'the private key is required'),
});
export type Certificate = z.infer<typeof certificateSchema>;

export const callbackUrlSchema = z
  .string()
  .trim()
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return url.protocol === 'http:' || url.protocol === 'https:';
      } catch {
        return false;
      }
    },
    { message: 'must be an absolute http(s) URL' },
  );

/** Applies a settings patch over full settings without touching keys the patch leaves out. */
export function mergeSettings(base: Settings, patch: SettingsPatch | undefined): Settings {
  if (!patch) return base;
  return {
    rules: { ...base.rules, ...patch.rules },
    rulesets: { ...base.rulesets, ...patch.rulesets },
    loadbalancer: { ...base.loadbalancer, ...patch.loadbalancer },
  };
}
