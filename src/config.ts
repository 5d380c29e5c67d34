/**
 * The plugin's configuration, read once from the environment and validated as a whole:
 * one error names every bad variable. `loadConfig` is pure so tests pass a plain object.
 */
import { hostname, networkInterfaces } from 'node:os';
import { isIP } from 'node:net';
import { isAbsolute, join, resolve } from 'node:path';
import { distance as levenshtein } from 'fastest-levenshtein';
import { z } from 'zod';
import { AppError } from './errors.js';
import { normalizeDomain } from './provider/spec.js';
import { readOrCreateSecretFile } from './secrets.js';

/** Reads "true/1/yes/on" and "false/0/no/off"; z.coerce.boolean would read "false" as true. */
const envBoolean = z
  .string()
  .trim()
  .toLowerCase()
  .refine((value) => ['true', '1', 'yes', 'on', 'false', '0', 'no', 'off'].includes(value), 'must be true or false')
  .transform((value) => ['true', '1', 'yes', 'on'].includes(value));

const port = z.coerce.number().int().min(0).max(65_535);
const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).transform((value) => value.replace(/\/+$/, ''));

/** Facts about this machine that defaults come from; tests pass their own. */
export interface MachineFacts {
  hostname: string;
  /** The first non-internal IPv4 address, the usual origin of websites hosted here. */
  primaryIp: string | undefined;
  /** The server's own time zone (IANA), the pages' zone when WPP_TIME_ZONE is unset; absent or UTC: times say UTC. */
  timeZone?: string | undefined;
}

export function readMachineFacts(): MachineFacts {
  const addresses = Object.values(networkInterfaces()).flat();
  const primary = addresses.find((address) => address && address.family === 'IPv4' && !address.internal);
  return { hostname: hostname(), primaryIp: primary?.address, timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone };
}

/** A CSP source a panel may frame the plugin's pages from: 'self', 'none', or an http(s) origin (a leading *. label allowed). */
function isFrameAncestor(source: string): boolean {
  if (source === "'self'" || source === "'none'") return true;
  const host = /^https?:\/\/(?:\*\.)?([^/:]+)(?::[0-9]{1,5})?$/i.exec(source)?.[1];
  return host !== undefined && (host === 'localhost' || isIP(host) === 4 || normalizeDomain(host) !== null);
}

/** Fills the rules editor template (WPP_RULES_EDITOR_URL): `{domain}`, `{lang}` and `{api_key}`, each URL-encoded. */
export function rulesEditorUrl(template: string, values: { domain: string; lang: string; apiKey: string }): string {
  return template
    .replaceAll('{domain}', encodeURIComponent(values.domain))
    .replaceAll('{lang}', encodeURIComponent(values.lang))
    .replaceAll('{api_key}', encodeURIComponent(values.apiKey));
}

/** Fills the host's upgrade page template (WPP_UPGRADE_URL): `{account}` and `{domain}`, each URL-encoded. */
export function upgradeUrl(template: string, values: { account: string; domain: string }): string {
  return template.replaceAll('{account}', encodeURIComponent(values.account)).replaceAll('{domain}', encodeURIComponent(values.domain));
}

/** A filled-in template with placeholder values: where the editor lives, whatever the website. */
export const sampleRulesEditorUrl = (template: string) => rulesEditorUrl(template, { domain: 'example.com', lang: 'en', apiKey: 'key' });

/** The rules editor template gives a valid http(s) URL once filled in, and names the website. */
function isRulesEditorTemplate(template: string): boolean {
  if (!template.includes('{domain}')) return false;
  try {
    const url = new URL(sampleRulesEditorUrl(template));
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The upgrade page template gives a valid http(s) URL once filled in (javascript: and the like never reach a link). */
function isUpgradeTemplate(template: string): boolean {
  try {
    const url = new URL(upgradeUrl(template, { account: 'alice', domain: 'example.com' }));
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** An IANA zone Intl knows (Europe/Berlin); a zone it does not know would silently be UTC on every page. */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The server's own zone, unless it is UTC by any of its names (a server on UTC says "UTC" anyway) or unknown to Intl. */
const ownZone = (zone: string | undefined) =>
  zone && !/^(Etc\/)?(UTC|UCT|GMT|Universal|Zulu)$/.test(zone) && isTimeZone(zone) ? zone : undefined;

/** The rules editor of the older dashboard generation, on the provider's (or the sandbox's) own origin. */
export const DEFAULT_RULES_EDITOR_PATH = '/{lang}/website/{domain}/edit?api-key={api_key}';

/** A host name usable as the domain of provider user ids, derived from this machine's name. */
function defaultAccountDomain(machine: MachineFacts): string {
  const name = machine.hostname.toLowerCase().replace(/[^a-z0-9.-]/g, '-');
  return normalizeDomain(`${name}.wpp.invalid`) ?? 'panel.wpp.invalid';
}

/** An SMTP server's URL: smtp:// (STARTTLS when offered) or smtps:// (TLS), with a host. */
const smtpUrl = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '';
    } catch {
      return false;
    }
    // The message never repeats the value: it may hold the password.
  }, 'must be an smtp:// or smtps:// URL with a host');

/** The fleet database's URL (PostgreSQL, as libpq and pg write it): postgres:// or postgresql://, with a host. */
const postgresUrl = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.hostname !== '';
    } catch {
      return false;
    }
    // As with the SMTP URL, the message never repeats the value: it holds the password.
  }, 'must be a postgres:// or postgresql:// URL with a host');

const envSchema = z.object({
  /** Provider base URL (paths add /v1.0/...). Unset: `wpp serve` starts the embedded sandbox. */
  WPP_PROVIDER_URL: httpUrl.optional(),
  /** Partner API key. Required with WPP_PROVIDER_URL; default: the embedded sandbox's own key. */
  WPP_PROVIDER_API_KEY: z.string().trim().min(1).optional(),
  /** Folder for the SQLite database, the embedded sandbox's data and generated secrets. Default ./data. */
  WPP_DATA_DIR: z.string().min(1).default('./data'),
  /** The key that encrypts the customers' provider API keys in the database. Default: <WPP_DATA_DIR>/api-keys.key, generated on first use. */
  WPP_KEY_FILE: z.string().min(1).optional(),
  /** Plugin HTTP listen address. Default 127.0.0.1. */
  WPP_HOST: z.string().min(1).default('127.0.0.1'),
  /** Plugin HTTP listen port. Default 8080. */
  WPP_PORT: port.default(8080),
  /** Where the provider reaches the plugin (callbacks). Default http://WPP_HOST:WPP_PORT. */
  WPP_PUBLIC_URL: httpUrl.optional(),
  /** HMAC secret shared with the panel's hook senders (POST /hooks/events); it signs nothing else. Default: generated into the data folder. */
  WPP_PANEL_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  /** This panel server's IP: origin of new websites when the event names none, and its registration. Default: the machine's first non-internal IPv4 address. */
  WPP_SERVER_IP: z
    .string()
    .trim()
    .refine((value) => isIP(value) !== 0, 'must be an IPv4 or IPv6 address')
    .optional(),
  /** This panel server's name (registration, tags). Default: the host name. */
  WPP_SERVER_NAME: z.string().trim().min(1).max(255).optional(),
  /** Zone of this panel server, if the provider uses zones. Default: none. */
  WPP_SERVER_ZONE: z.string().trim().min(1).max(255).optional(),
  /** Tag of this panel server at the provider. Default: none. */
  WPP_SERVER_TAG: z.string().trim().min(1).max(100).optional(),
  /** Domain of provider user ids: panel account `alice` becomes `alice@WPP_ACCOUNT_DOMAIN`. Default: `<host name>.wpp.invalid`. */
  WPP_ACCOUNT_DOMAIN: z
    .string()
    .trim()
    .refine((value) => normalizeDomain(value) !== null, 'must be a domain name')
    .transform((value) => normalizeDomain(value) as string)
    .optional(),
  /** New websites start protected (`online`) when true, in `setup` when false. Default true. */
  WPP_AUTO_PROTECT: envBoolean.default(true),
  /** Jobs the worker runs at once. Default 8. */
  WPP_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /** Attempts before a job is dead. Default 10. */
  WPP_JOB_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(10),
  /** How long a claimed job is reserved for its worker; after a crash it runs again once this expires. Default 120. */
  WPP_JOB_LEASE_SECONDS: z.coerce.number().int().min(1).max(3600).default(120),
  /**
   * Minutes between full enforcement passes (the adaptive sync enforces what it reads as it
   * reads; the full pass also resumes at a new period and applies changed limits). With
   * WPP_SYNC_MODE=full: minutes between full syncs, each followed by enforcement. Default 5.
   */
  WPP_SYNC_INTERVAL_MINUTES: z.coerce.number().int().min(1).max(1440).default(5),
  /**
   * `adaptive` (default): every minute, read the websites most at risk of crossing a limit,
   * within WPP_SYNC_RATE; `full`: read every website every WPP_SYNC_INTERVAL_MINUTES.
   */
  WPP_SYNC_MODE: z.enum(['adaptive', 'full']).default('adaptive'),
  /** The longest the adaptive sync leaves a website unread (charts stay current), 1 to 1440. Default 60. */
  WPP_SYNC_MAX_AGE_MINUTES: z.coerce.number().int().min(1).max(1440).default(60),
  /** Statistics requests in flight at once; also the accounts an enforcement pass works on at once. Default 16. */
  WPP_SYNC_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /**
   * The most provider requests per second this server sends in all (the pacer's ceiling,
   * docs/fleet.md, shared by every process of the data folder); 0 for no limit. Default 40
   * (under the provider's usual per-key rate). Whole, as it always was.
   */
  WPP_SYNC_RATE: z.coerce.number().int().min(0).max(100_000).default(40),
  /** Receives every enforcement action and warning as signed JSON (X-WPP-Signature, the notification secret). Default: none, nothing is sent. */
  WPP_NOTIFY_URL: httpUrl.optional(),
  /**
   * HMAC secret of X-WPP-Signature on what is sent to WPP_NOTIFY_URL, for its receiver to check.
   * Default: generated into the data folder (`notify-secret`) and shown to admins on the Settings page.
   */
  WPP_NOTIFY_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Port of the embedded sandbox when WPP_PROVIDER_URL is unset. Default 8081. */
  WPP_SANDBOX_PORT: port.default(8081),
  /** Log level of the JSON logs on standard error (also `wpp sandbox`'s). Default info. */
  WPP_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Where a hook that may not write the database posts its events (`/hooks/events` is added). Default WPP_PUBLIC_URL, else http://WPP_HOST:WPP_PORT. */
  WPP_HOOK_URL: httpUrl.optional(),
  /** The script `wpp hook cpanel --describe` names in its hook list, for cPanel's manage_hooks. Default /usr/local/cpanel/3rdparty/bin/wpp-hook-cpanel. */
  WPP_CPANEL_HOOK_COMMAND: z
    .string()
    .trim()
    .refine((value) => isAbsolute(value), 'must be an absolute path')
    .default('/usr/local/cpanel/3rdparty/bin/wpp-hook-cpanel'),
  /**
   * The panel origins allowed to show the plugin's pages in a frame (CSP frame-ancestors),
   * separated by spaces: `'self'`, `'none'`, `https://panel.host.example:2083` or
   * `https://*.host.example`. Default 'self'.
   */
  WPP_FRAME_ANCESTORS: z
    .string()
    .trim()
    .refine((value) => value.split(/\s+/).every(isFrameAncestor), "must be 'self', 'none' or http(s) origins separated by spaces")
    .default("'self'"),
  /**
   * The provider's rules editor for one website, framed in the customer's domain page: a URL
   * with {domain}, {lang} and {api_key} (the customer's own key). Default: the provider's
   * dashboard address /{lang}/website/{domain}/edit?api-key={api_key} (the sandbox's too).
   */
  WPP_RULES_EDITOR_URL: z.string().trim().refine(isRulesEditorTemplate, 'must be an http(s) URL template naming {domain}').optional(),
  /**
   * The host's page for a customer whose website the hit limit paused (a bigger plan, more
   * hits): a URL with {account} and {domain}, each URL-encoded when filled in. Default none:
   * the page says to contact the host.
   */
  WPP_UPGRADE_URL: z
    .string()
    .trim()
    .refine(isUpgradeTemplate, 'must be an http(s) URL, with {account} and {domain} where the host wants them')
    .optional(),
  /** The panel's time zone for the pages' dates and times (IANA, e.g. Europe/Berlin). Default: the server's own; UTC said when it is UTC. */
  WPP_TIME_ZONE: z.string().trim().refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin').optional(),
  /**
   * The panel this server runs, for the scheduled comparison of its accounts (`wpp import`);
   * `systemd` (installed as a service without a panel) and `none`: no scheduled comparison.
   * `wpp install` sets it; any value but `none` marks an installed plugin (GET /metrics then
   * requires WPP_METRICS_TOKEN). Default none.
   */
  WPP_PANEL: z.enum(['cpanel', 'plesk', 'directadmin', 'virtualmin', 'systemd', 'none']).default('none'),
  /** Hours between scheduled comparisons of the panel's accounts and domains with the plugin's; 0: none. Default 24. */
  WPP_PANEL_CHECK_HOURS: z.coerce.number().int().min(0).max(24).default(24),
  /** Minutes a page session may stay unused before it ends. Default 30. */
  WPP_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(1440).default(30),
  /** Hours after sign-in a page session ends, however active. Default 12. */
  WPP_SESSION_MAX_HOURS: z.coerce.number().int().min(1).max(168).default(12),
  /**
   * Bearer token GET /metrics requires. Default: none; /metrics then answers loopback clients
   * only, and nobody at all on an installed plugin (WPP_PANEL set), where every customer with a
   * shell is a loopback client. `wpp install` generates one into /etc/wpp/env.
   */
  WPP_METRICS_TOKEN: z.string().trim().min(16, 'must be at least 16 characters').optional(),
  /** The SMTP server mails are sent through (smtp:// or smtps://, user:password@ if it asks): a secret. Default: none, no mail is sent. */
  WPP_SMTP_URL: smtpUrl.optional(),
  /** The sender of every mail (an e-mail address); required with WPP_SMTP_URL. */
  WPP_MAIL_FROM: z.email({ message: 'must be an e-mail address' }).optional(),
  /** The host's name the mails sign with. Default: this machine's full host name, else "your hosting provider" in the mail's language. */
  WPP_HOST_NAME: z.string().trim().min(1).max(100).optional(),
  /** Who gets the admin's daily digest; an admin's setting on the Settings page wins. Default: none. */
  WPP_ADMIN_EMAIL: z.email({ message: 'must be an e-mail address' }).optional(),
  /** The fleet database shared by many panel servers on one partner key (PostgreSQL; docs/fleet.md): a secret. Default: none, this server works alone. */
  WPP_FLEET_DATABASE_URL: postgresUrl.optional(),
  /**
   * The partner key's rate the provider set, requests a second: the most the fleet budget hands
   * out across the servers sharing WPP_FLEET_DATABASE_URL (docs/fleet.md, "The fleet budget").
   * Default: none, the fleet learns it from the provider's 429s, starting from WPP_SYNC_RATE.
   */
  WPP_FLEET_KEY_RATE: z.coerce.number().positive().max(100_000).optional(),
});

/** The environment as `process.env` holds it. */
export type Env = Record<string, string | undefined>;

export type SettingName = keyof typeof envSchema.shape;

/** Every setting, in the order of the schema (and of plugin.json). */
export const SETTING_NAMES = Object.keys(envSchema.shape) as SettingName[];

/**
 * The fixed default of each setting that has one, as parsed (numbers, booleans). The others
 * are unset by default or derive theirs from the machine or other settings (see the schema).
 */
export const SETTING_DEFAULTS: Partial<Record<SettingName, unknown>> = Object.fromEntries(
  Object.entries(envSchema.parse({})).filter(([, value]) => value !== undefined),
);

/**
 * The setting an unknown `WPP_*` name most likely meant, if any is close: one name containing
 * the other (`WPP_SYNC_INTERVAL` in `WPP_SYNC_INTERVAL_MINUTES`) or a few characters off (up to
 * 40% of the name, at least 2). A typo (at most 2 edits) wins, then containment, then more words
 * in common, then fewer edits: `WPP_SYNC_INTERVAL` is nearer `WPP_SYNC_RATE` by edits alone, and
 * `WPP_PANEL_SECRT` contains `WPP_PANEL` but is one letter off `WPP_PANEL_SECRET`.
 */
export function closestSetting(name: string): SettingName | undefined {
  const unknown = name.replace(/^WPP_/, '');
  const words = new Set(unknown.split('_'));
  const ranked = SETTING_NAMES.map((setting) => {
    const known = setting.replace(/^WPP_/, '');
    const [shorter, longer] = unknown.length <= known.length ? [unknown, known] : [known, unknown];
    const distance = levenshtein(unknown, known);
    return {
      setting,
      contains: shorter.length >= 4 && longer.includes(shorter),
      close: distance <= Math.max(2, Math.ceil(longer.length * 0.4)),
      shared: known.split('_').filter((word) => words.has(word)).length,
      distance,
    };
  })
    .filter((c) => c.contains || c.close)
    .sort(
      (a, b) =>
        Number(b.distance <= 2) - Number(a.distance <= 2) ||
        Number(b.contains) - Number(a.contains) ||
        b.shared - a.shared ||
        a.distance - b.distance,
    );
  return ranked[0]?.setting;
}

/**
 * One warning per `WPP_*` variable that is set but is no setting: ignored, since a panel may
 * export the variables of a newer version, but named, since it is more often a typo. Values
 * are never repeated (a misspelt secret is still a secret).
 */
export function unknownSettingWarnings(env: Env): string[] {
  const known = new Set<string>(SETTING_NAMES);
  return Object.entries(env)
    .filter(([key, value]) => key.startsWith('WPP_') && !known.has(key) && value !== undefined && value !== '')
    .map(([key]) => {
      const meant = closestSetting(key);
      return meant ? `${key} is not a setting of wpp; did you mean ${meant}?` : `${key} is not a setting of wpp`;
    });
}

export interface Config {
  provider: { url: string; apiKey: string } | { embedded: true; sandboxPort: number };
  /** Unknown `WPP_*` variables, for the entry point to print once (loadConfig stays pure). */
  warnings: string[];
  dataDir: string;
  databaseFile: string;
  /** The key file of the stored API keys: outside the database, so a copy of the database alone does not give them away. */
  keyFile: string;
  host: string;
  port: number;
  /** WPP_PUBLIC_URL; when unset, main.ts uses http://host:port with the port actually bound. */
  publicUrl: string | undefined;
  /** The hook secret (WPP_PANEL_SECRET); undefined until `ensurePanelSecret` reads or creates the file. */
  panelSecret: string | undefined;
  /** WPP_NOTIFY_SECRET; when unset, the generated one in the data folder (secrets.ts). */
  notifySecret: string | undefined;
  server: { ip: string | undefined; name: string; zone: string | undefined; tag: string | undefined };
  accountDomain: string;
  autoProtect: boolean;
  worker: { concurrency: number; maxAttempts: number; leaseMs: number };
  sync: { intervalMinutes: number; concurrency: number; ratePerSecond: number; mode: 'adaptive' | 'full'; maxAgeMinutes: number };
  notifyUrl: string | undefined;
  logLevel: z.output<typeof envSchema>['WPP_LOG_LEVEL'];
  /** Where a hook that may not write the database posts its events, and the script cPanel runs. */
  hook: { url: string; cpanelCommand: string };
  /** The customer and admin pages: who may frame them, the rules editor frame, session timeouts. */
  pages: {
    frameAncestors: string[];
    rulesEditorUrl: string | undefined;
    sessionIdleMs: number;
    sessionMaxMs: number;
    /** WPP_UPGRADE_URL: the host's upgrade page template ({account}, {domain}); undefined: "contact your host". */
    upgradeUrl: string | undefined;
    /** The zone dates and times are shown in; undefined: UTC, and the pages say so. */
    timeZone: string | undefined;
  };
  /** The panel to compare on a schedule (WPP_PANEL; null: none) and how often (null: never). */
  panel: { name: 'cpanel' | 'plesk' | 'directadmin' | 'virtualmin' | null; checkEveryMinutes: number | null };
  /**
   * GET /metrics: the bearer token it requires; without one, loopback clients only, unless
   * `tokenRequired` (an installed plugin: WPP_PANEL set), where nobody is answered without it.
   */
  metrics: { token: string | undefined; tokenRequired: boolean };
  /** E-mail (core/mail.ts): the SMTP URL (a secret: it holds the password), the sender, the host's name in mails (undefined: said in the mail's language), the admin's address. */
  mail: { smtpUrl: string | undefined; from: string | undefined; hostName: string | undefined; adminEmail: string | undefined };
  /** The fleet database (src/fleet, docs/fleet.md): its URL, a secret (it holds the password); undefined: this server works alone. */
  fleet: { databaseUrl: string | undefined; keyRate: number | undefined };
}

/** The configuration of a command that never reaches the provider: every setting but `provider`. */
export type StandaloneConfig = Omit<Config, 'provider'>;

type ParsedEnv = z.output<typeof envSchema>;

/** The WPP_ variables validated, with the rules between them; throws one CONFIG_INVALID naming every problem. */
function parseEnv(env: Env, scope: 'plugin' | 'standalone'): { e: ParsedEnv; warnings: string[] } {
  // An empty variable means "not set", as shells and panels often export them empty.
  const present = Object.fromEntries(
    Object.entries(env).filter(([key, value]) => key.startsWith('WPP_') && value !== undefined && value !== ''),
  );
  const result = envSchema.safeParse(present);
  const problems = result.success
    ? []
    : result.error.issues.map((issue) => ({ path: String(issue.path[0] ?? ''), message: issue.message }));
  // The receiver of notifications holds their secret: it must not also be able to sign panel events.
  if (result.success && result.data.WPP_NOTIFY_SECRET !== undefined && result.data.WPP_NOTIFY_SECRET === result.data.WPP_PANEL_SECRET) {
    problems.push({ path: 'WPP_NOTIFY_SECRET', message: 'must differ from WPP_PANEL_SECRET (each secret has one purpose)' });
  }
  if (result.success && result.data.WPP_SMTP_URL && !result.data.WPP_MAIL_FROM) {
    problems.push({ path: 'WPP_MAIL_FROM', message: 'is required when WPP_SMTP_URL is set' });
  }
  if (scope === 'plugin' && result.success && result.data.WPP_PROVIDER_URL && !result.data.WPP_PROVIDER_API_KEY) {
    problems.push({ path: 'WPP_PROVIDER_API_KEY', message: 'is required when WPP_PROVIDER_URL is set' });
  }
  const warnings = unknownSettingWarnings(env);
  if (!result.success || problems.length > 0) {
    // The unknown names go along: `WPP_PROVIDER_APIKEY` is the likely cause of a missing key.
    throw new AppError(
      'CONFIG_INVALID',
      `Invalid configuration:\n${[...problems.map((p) => `${p.path}: ${p.message}`), ...warnings].map((line) => `  ${line}`).join('\n')}`,
      problems,
    );
  }
  return { e: result.data, warnings };
}

/** The settings every command shares, from the validated variables and the machine's facts. */
function standaloneSettings(e: ParsedEnv, machine: MachineFacts, warnings: string[]): StandaloneConfig {
  const dataDir = resolve(e.WPP_DATA_DIR);
  // `systemd` is an installation without a panel: nothing to compare on a schedule.
  const panelName = e.WPP_PANEL === 'none' || e.WPP_PANEL === 'systemd' ? null : e.WPP_PANEL;
  return {
    warnings,
    dataDir,
    databaseFile: join(dataDir, 'plugin.sqlite'),
    keyFile: e.WPP_KEY_FILE === undefined ? join(dataDir, API_KEY_FILE) : resolve(e.WPP_KEY_FILE),
    host: e.WPP_HOST,
    port: e.WPP_PORT,
    publicUrl: e.WPP_PUBLIC_URL,
    panelSecret: e.WPP_PANEL_SECRET,
    notifySecret: e.WPP_NOTIFY_SECRET,
    server: {
      // With the embedded sandbox nothing is really protected, so loopback is a fine demo origin.
      ip: e.WPP_SERVER_IP ?? machine.primaryIp ?? (e.WPP_PROVIDER_URL ? undefined : '127.0.0.1'),
      name: e.WPP_SERVER_NAME ?? machine.hostname,
      zone: e.WPP_SERVER_ZONE,
      tag: e.WPP_SERVER_TAG,
    },
    accountDomain: e.WPP_ACCOUNT_DOMAIN ?? defaultAccountDomain(machine),
    autoProtect: e.WPP_AUTO_PROTECT,
    worker: { concurrency: e.WPP_WORKER_CONCURRENCY, maxAttempts: e.WPP_JOB_MAX_ATTEMPTS, leaseMs: e.WPP_JOB_LEASE_SECONDS * 1000 },
    sync: {
      intervalMinutes: e.WPP_SYNC_INTERVAL_MINUTES,
      concurrency: e.WPP_SYNC_CONCURRENCY,
      ratePerSecond: e.WPP_SYNC_RATE,
      mode: e.WPP_SYNC_MODE,
      maxAgeMinutes: e.WPP_SYNC_MAX_AGE_MINUTES,
    },
    notifyUrl: e.WPP_NOTIFY_URL,
    logLevel: e.WPP_LOG_LEVEL,
    hook: { url: e.WPP_HOOK_URL ?? e.WPP_PUBLIC_URL ?? `http://${e.WPP_HOST}:${e.WPP_PORT}`, cpanelCommand: e.WPP_CPANEL_HOOK_COMMAND },
    pages: {
      frameAncestors: e.WPP_FRAME_ANCESTORS.split(/\s+/),
      // Without a template the editor is the provider's own dashboard page; main.ts knows the embedded sandbox's address.
      rulesEditorUrl: e.WPP_RULES_EDITOR_URL ?? (e.WPP_PROVIDER_URL ? `${e.WPP_PROVIDER_URL}${DEFAULT_RULES_EDITOR_PATH}` : undefined),
      sessionIdleMs: e.WPP_SESSION_IDLE_MINUTES * 60_000,
      sessionMaxMs: e.WPP_SESSION_MAX_HOURS * 3_600_000,
      upgradeUrl: e.WPP_UPGRADE_URL,
      // A server on UTC says "UTC" anyway: only another zone of its own is worth naming.
      timeZone: e.WPP_TIME_ZONE ?? ownZone(machine.timeZone),
    },
    panel: {
      name: panelName,
      checkEveryMinutes: panelName === null || e.WPP_PANEL_CHECK_HOURS === 0 ? null : e.WPP_PANEL_CHECK_HOURS * 60,
    },
    metrics: { token: e.WPP_METRICS_TOKEN, tokenRequired: e.WPP_PANEL !== 'none' },
    mail: {
      smtpUrl: e.WPP_SMTP_URL,
      from: e.WPP_MAIL_FROM,
      // A bare machine name (web1) means nothing to a customer; a full one (web1.host.example) names the host.
      hostName: e.WPP_HOST_NAME ?? (machine.hostname.includes('.') ? machine.hostname : undefined),
      adminEmail: e.WPP_ADMIN_EMAIL,
    },
    fleet: { databaseUrl: e.WPP_FLEET_DATABASE_URL, keyRate: e.WPP_FLEET_KEY_RATE },
  };
}

/**
 * Parses the environment; throws one CONFIG_INVALID error naming every bad variable. `scope`
 * says what the command needs. `plugin` (the default): everything, with WPP_PROVIDER_API_KEY
 * required beside WPP_PROVIDER_URL. `standalone`: for commands that never reach the provider
 * and may run before the plugin is fully configured (`wpp sandbox`, `wpp hook cpanel
 * --describe`); every value is still validated, only `provider` is left out.
 */
export function loadConfig(env: Env, machine?: MachineFacts, scope?: 'plugin'): Config;
export function loadConfig(env: Env, machine: MachineFacts | undefined, scope: 'standalone'): StandaloneConfig;
export function loadConfig(
  env: Env,
  machine: MachineFacts = readMachineFacts(),
  scope: 'plugin' | 'standalone' = 'plugin',
): Config | StandaloneConfig {
  const { e, warnings } = parseEnv(env, scope);
  const settings = standaloneSettings(e, machine, warnings);
  if (scope === 'standalone') return settings;
  return {
    provider: e.WPP_PROVIDER_URL
      ? { url: e.WPP_PROVIDER_URL, apiKey: e.WPP_PROVIDER_API_KEY as string }
      : { embedded: true, sandboxPort: e.WPP_SANDBOX_PORT },
    ...settings,
  };
}

/** The generated panel secret's file name in the data folder. */
export const PANEL_SECRET_FILE = 'panel-secret';
/** The default key file of the stored API keys, in the data folder. */
export const API_KEY_FILE = 'api-keys.key';

/**
 * The hook secret: WPP_PANEL_SECRET, else `panel-secret` in the data folder, created on first
 * use (owner-only) so hooks and the server agree without anyone copying a secret. It verifies
 * panel events only (see secrets.ts for the others).
 */
export function ensurePanelSecret(config: Pick<StandaloneConfig, 'panelSecret' | 'dataDir'>): string {
  if (config.panelSecret) return config.panelSecret;
  const secret = readOrCreateSecretFile(config.dataDir, PANEL_SECRET_FILE);
  config.panelSecret = secret;
  return secret;
}
