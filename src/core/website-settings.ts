/**
 * A domain's settings form and the provider: the current settings read from the provider,
 * a submitted form parsed into a partial update of only what changed (a custom certificate
 * checked before sending), and every problem, local or the provider's, keyed by the form
 * field it belongs to so the page shows it there. A form with any problem sends nothing.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';
import type { AccountsRepo } from '../db/accounts.repo.js';
import {
  CERTS_ISSUERS,
  LOADBALANCER_FLAGS,
  normalizeSubdomain,
  RULE_CATEGORIES,
  RULE_POLICIES,
  RULESETS,
  isProviderError,
  type LoadbalancerFlag,
  type ProviderClient,
  type ProviderWebsite,
  type RuleCategory,
  type Ruleset,
  type WebsitePatch,
} from '../provider/index.js';
import { RULESET_WORDS } from '../provider/setting-words.js';
import type { Translate } from './i18n.js';
import { providerFailure } from './protection.js';
import type { Website } from './types.js';

/** The settings as the provider reports them, split the way the form shows them. */
export interface SettingsView {
  rules: Partial<Record<RuleCategory, string>>;
  rulesets: Record<Ruleset, boolean>;
  loadbalancer: Record<LoadbalancerFlag, boolean>;
  certsIssuer: string;
  subdomains: string[];
  ipv4: string[];
  ipv6: string[];
  certificateStatus: string | null;
}

/** What the form's fields hold: the current settings, or what was submitted (shown again with its problems). */
export interface SettingsForm {
  rules: Partial<Record<RuleCategory, string>>;
  rulesets: Record<Ruleset, boolean>;
  loadbalancer: Record<LoadbalancerFlag, boolean>;
  certsIssuer: string;
  subdomains: string;
  ipv4: string;
  ipv6: string;
}

/** Problems by form field name (`rule_humans`, `ipv4`, `certificate`, ...); `form` for one that belongs to no field. */
export type FieldProblems = Record<string, string>;

export interface UploadedFile {
  fieldname: string;
  buffer: Buffer;
}

export type ParsedSettings = { ok: true; patch: WebsitePatch; changed: string[] } | { ok: false; problems: FieldProblems };

export const ruleField = (category: string) => `rule_${category}`;
export const rulesetField = (name: string) => `ruleset_${name}`;
export const flagField = (flag: string) => `lb_${flag}`;

/** The form's own fields beside the settings, by form field name: their words' ids (`settingWords.fields.<id>`, provider/setting-words.ts). */
const ADDRESS_FIELDS: Record<string, string> = {
  certs_issuer: 'certs_issuer',
  subdomains: 'subdomain',
  ipv4: 'ip',
  ipv6: 'ipv6',
  certificate: 'certificate',
  private_key: 'private_key',
};

/** The label a form field is shown with (`rule_humans` → "People"), so a message names it as the form does; undefined for `form`. */
export function settingsFieldLabel(field: string, t: Translate): string | undefined {
  const [, kind, key = ''] = /^(rule|ruleset|lb)_(.+)$/.exec(field) ?? [];
  if (kind === 'rule') return (RULE_CATEGORIES as readonly string[]).includes(key) ? t(`settingWords.categories.${key}.label`) : undefined;
  if (kind === 'ruleset') return rulesetLabel(key);
  if (kind === 'lb') return (LOADBALANCER_FLAGS as readonly string[]).includes(key) ? t(`settingWords.flags.${key}.label`) : undefined;
  const words = ADDRESS_FIELDS[field];
  return words ? t(`settingWords.fields.${words}.label`) : undefined;
}

/** A rule set is named as its maker spells it, in every language. */
const rulesetLabel = (key: string) => (Object.hasOwn(RULESET_WORDS, key) ? RULESET_WORDS[key as Ruleset].label : undefined);

/** A policy's or issuer's label in a message. */
const policyChoices = (t: Translate) =>
  Object.fromEntries(RULE_POLICIES.map((policy) => [policy, t(`settingWords.policies.${policy}.label`)]));
const issuerLabel = (t: Translate, issuer: string) => t(`settingWords.issuers.${issuer}.label`);

export function settingsViewOf(remote: ProviderWebsite): SettingsView {
  const { settings } = remote;
  return {
    rules: settings.rules,
    rulesets: Object.fromEntries(RULESETS.map((name) => [name, settings.rulesets[name] ?? false])) as Record<Ruleset, boolean>,
    loadbalancer: Object.fromEntries(LOADBALANCER_FLAGS.map((flag) => [flag, settings.loadbalancer[flag] ?? false])) as Record<
      LoadbalancerFlag,
      boolean
    >,
    certsIssuer: settings.loadbalancer.certs_issuer ?? 'acme',
    subdomains: remote.subdomain,
    // The provider's `ip` may hold IPv6 addresses too; the form lists them with the IPv6 ones.
    ipv4: remote.ip.filter((ip) => isIP(ip) === 4),
    ipv6: [...new Set([...remote.ip.filter((ip) => isIP(ip) === 6), ...remote.ipv6])],
    certificateStatus: remote.certificate_status ?? null,
  };
}

export const formOf = (view: SettingsView): SettingsForm => ({
  rules: view.rules,
  rulesets: view.rulesets,
  loadbalancer: view.loadbalancer,
  certsIssuer: view.certsIssuer,
  subdomains: view.subdomains.join(', '),
  ipv4: view.ipv4.join('\n'),
  ipv6: view.ipv6.join('\n'),
});

const ticked = z
  .unknown()
  .optional()
  .transform((value) => value !== undefined && value !== '');
const text = (max: number) => z.string().max(max).default('');

/** A select left on a policy the provider reported but the form does not know (the empty option) keeps it. */
const rulePolicyField = z.preprocess((value) => (value === '' ? undefined : value), z.enum(RULE_POLICIES).optional());

/** The form as posted: selects and radios must hold a known value; an unticked checkbox is simply absent. */
const formBodySchema = z.object({
  ...(Object.fromEntries(RULE_CATEGORIES.map((category) => [ruleField(category), rulePolicyField])) as Record<
    string,
    typeof rulePolicyField
  >),
  ...(Object.fromEntries(RULESETS.map((name) => [rulesetField(name), ticked])) as Record<string, typeof ticked>),
  ...(Object.fromEntries(LOADBALANCER_FLAGS.map((flag) => [flagField(flag), ticked])) as Record<string, typeof ticked>),
  subdomains: text(4000),
  ipv4: text(4000),
  ipv6: text(8000),
  certs_issuer: z.enum(CERTS_ISSUERS),
});

/** A refused field's message in the user's language: the choices of a select or radio, else the length or an unreadable value. */
function issueMessage(issue: z.core.$ZodIssue, t: Translate): string {
  const field = String(issue.path[0] ?? 'form');
  if (field.startsWith('rule_')) return t('settingsForm.problems.choosePolicy', policyChoices(t));
  if (field === 'certs_issuer')
    return t('settingsForm.problems.chooseIssuer', { acme: issuerLabel(t, 'acme'), custom: issuerLabel(t, 'custom') });
  if (issue.code === 'too_big') return t('settingsForm.problems.atMost', { max: String(issue.maximum) });
  return t('settingsForm.problems.couldNotRead');
}

/** What was submitted, as the form shows it again; unreadable values fall back to the current ones. */
export function submittedForm(body: unknown, current: SettingsView): SettingsForm {
  const raw = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const str = (key: string, fallback: string) => (typeof raw[key] === 'string' ? raw[key] : fallback);
  return {
    rules: Object.fromEntries(RULE_CATEGORIES.map((c) => [c, str(ruleField(c), current.rules[c] ?? '')])),
    rulesets: Object.fromEntries(RULESETS.map((name) => [name, raw[rulesetField(name)] !== undefined])) as Record<Ruleset, boolean>,
    loadbalancer: Object.fromEntries(LOADBALANCER_FLAGS.map((flag) => [flag, raw[flagField(flag)] !== undefined])) as Record<
      LoadbalancerFlag,
      boolean
    >,
    certsIssuer: str('certs_issuer', current.certsIssuer),
    subdomains: str('subdomains', ''),
    ipv4: str('ipv4', ''),
    ipv6: str('ipv6', ''),
  };
}

const entries = (value: string) => value.split(/[\s,;]+/).filter((item) => item !== '');

/** Parses a list field, each entry with `check`; the first bad entry is the field's problem. */
function parseList(
  value: string,
  check: (entry: string) => string | null,
  notOne: (entry: string) => string,
): { list: string[] } | { problem: string } {
  const list: string[] = [];
  for (const entry of entries(value)) {
    const parsed = check(entry);
    if (parsed === null) return { problem: notOne(entry.slice(0, 80)) };
    if (!list.includes(parsed)) list.push(parsed);
  }
  return { list };
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((item) => b.includes(item));

/** The uploaded certificate and key, checked as the provider will: both PEM, and the key belonging to the certificate. */
export function checkCertificateUpload(
  files: readonly UploadedFile[],
  domain: string,
  now: number,
  t: Translate,
): { certificate: { public: string; private: string } } | { problems: FieldProblems } | null {
  const certificateFile = files.find((file) => file.fieldname === 'certificate' && file.buffer.length > 0);
  const keyFile = files.find((file) => file.fieldname === 'private_key' && file.buffer.length > 0);
  if (!certificateFile && !keyFile) return null;
  const problems: FieldProblems = {};
  if (!certificateFile) problems.certificate = t('settingsForm.problems.certificateToo');
  if (!keyFile) problems.private_key = t('settingsForm.problems.keyToo');
  if (!certificateFile || !keyFile) return { problems };
  const publicPem = certificateFile.buffer.toString('utf8');
  const privatePem = keyFile.buffer.toString('utf8');
  let leaf: X509Certificate | null = null;
  try {
    leaf = new X509Certificate(publicPem);
  } catch {
    problems.certificate = t('settingsForm.problems.notPemCertificate');
  }
  try {
    const key = createPrivateKey(privatePem);
    if (leaf && !leaf.checkPrivateKey(key)) problems.private_key = t('settingsForm.problems.keyMismatch');
  } catch {
    problems.private_key = t('settingsForm.problems.notPemKey');
  }
  if (leaf && !problems.certificate) {
    if (Date.parse(leaf.validTo) < now) problems.certificate = t('settingsForm.problems.expired', { date: leaf.validTo });
    else if (leaf.checkHost(domain) === undefined) problems.certificate = t('settingsForm.problems.notForDomain', { domain });
  }
  return Object.keys(problems).length > 0 ? { problems } : { certificate: { public: publicPem, private: privatePem } };
}

/** Reads the origin and subdomain fields; problems keyed by field. */
function parseAddresses(form: { subdomains: string; ipv4: string; ipv6: string }, problems: FieldProblems, t: Translate) {
  const notOne = (key: string) => (entry: string) => t(`settingsForm.problems.${key}`, { entry });
  const subdomains = parseList(form.subdomains, normalizeSubdomain, notOne('notSubdomain'));
  const ipv4 = parseList(form.ipv4, (ip) => (isIP(ip) === 4 ? ip : null), notOne('notIpv4'));
  const ipv6 = parseList(form.ipv6, (ip) => (isIP(ip) === 6 ? ip.toLowerCase() : null), notOne('notIpv6'));
  if ('problem' in subdomains) problems.subdomains = subdomains.problem;
  if ('problem' in ipv4) problems.ipv4 = ipv4.problem;
  if ('problem' in ipv6) problems.ipv6 = ipv6.problem;
  const lists = {
    subdomains: 'list' in subdomains ? subdomains.list : [],
    ipv4: 'list' in ipv4 ? ipv4.list : [],
    ipv6: 'list' in ipv6 ? ipv6.list : [],
  };
  if (!problems.ipv4 && !problems.ipv6 && lists.ipv4.length === 0 && lists.ipv6.length === 0) {
    problems.ipv4 = t('settingsForm.problems.needAddress');
  }
  return lists;
}

/**
 * The submitted form as a partial update of what differs from `current`, or the problems by
 * field. A custom certificate is required when switching to custom, optional (a replacement)
 * when it already is, and refused with the automatic issuer.
 */
export function parseSettingsForm(
  body: unknown,
  files: readonly UploadedFile[],
  current: SettingsView,
  domain: string,
  now: number,
  t: Translate,
): ParsedSettings {
  const problems: FieldProblems = {};
  const parsed = formBodySchema.safeParse(body);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems[String(issue.path[0] ?? 'form')] ??= issueMessage(issue, t);
  }
  const form = parsed.success ? parsed.data : submittedFormFallback(body);
  const addresses = parseAddresses(form, problems, t);
  const issuer = parsed.success ? parsed.data.certs_issuer : current.certsIssuer;
  const upload = checkCertificateUpload(files, domain, now, t);
  if (upload && 'problems' in upload) Object.assign(problems, upload.problems);
  if (issuer === 'acme' && upload && 'certificate' in upload) {
    problems.certificate = t('settingsForm.problems.chooseCustom', { custom: issuerLabel(t, 'custom') });
  }
  if (issuer === 'custom' && current.certsIssuer !== 'custom' && !upload) {
    problems.certificate = t('settingsForm.problems.uploadForCustom');
  }
  if (!parsed.success || Object.keys(problems).length > 0) return { ok: false, problems };
  return { ok: true, ...diff(parsed.data, addresses, upload && 'certificate' in upload ? upload.certificate : undefined, current) };
}

/** The list fields of a body the schema refused, so the address checks still report their own problems. */
function submittedFormFallback(body: unknown) {
  const raw = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const str = (key: string) => (typeof raw[key] === 'string' ? raw[key] : '');
  return { subdomains: str('subdomains'), ipv4: str('ipv4'), ipv6: str('ipv6') };
}

/** Only what changed: a setting left as it was is not sent. */
function diff(
  data: z.output<typeof formBodySchema>,
  addresses: { subdomains: string[]; ipv4: string[]; ipv6: string[] },
  certificate: { public: string; private: string } | undefined,
  current: SettingsView,
): { patch: WebsitePatch; changed: string[] } {
  const fields = data as Record<string, unknown>;
  const rules = Object.fromEntries(
    RULE_CATEGORIES.flatMap((c) => {
      const value = fields[ruleField(c)];
      return value !== undefined && value !== current.rules[c] ? [[c, value]] : [];
    }),
  );
  const rulesets = Object.fromEntries(
    RULESETS.flatMap((r) => (fields[rulesetField(r)] !== current.rulesets[r] ? [[r, fields[rulesetField(r)]]] : [])),
  );
  const loadbalancer: Record<string, unknown> = Object.fromEntries(
    LOADBALANCER_FLAGS.flatMap((f) => (fields[flagField(f)] !== current.loadbalancer[f] ? [[f, fields[flagField(f)]]] : [])),
  );
  if (data.certs_issuer !== current.certsIssuer) loadbalancer.certs_issuer = data.certs_issuer;
  const settings = {
    ...(Object.keys(rules).length > 0 ? { rules } : {}),
    ...(Object.keys(rulesets).length > 0 ? { rulesets } : {}),
    ...(Object.keys(loadbalancer).length > 0 ? { loadbalancer } : {}),
  };
  const ipv4Changed = !sameSet(addresses.ipv4, current.ipv4);
  const ipv6Changed = !sameSet(addresses.ipv6, current.ipv6);
  const patch: WebsitePatch = {
    ...(Object.keys(settings).length > 0 ? { settings: settings as WebsitePatch['settings'] } : {}),
    ...(!sameSet(addresses.subdomains, current.subdomains) ? { subdomain: addresses.subdomains } : {}),
    ...(ipv4Changed ? { ip: addresses.ipv4 } : {}),
    // IPv6 addresses the provider kept in `ip` would go with a new IPv4 list: send the IPv6 list with it.
    ...(ipv6Changed || (ipv4Changed && addresses.ipv6.length > 0) ? { ipv6: addresses.ipv6 } : {}),
    ...(certificate ? { certificate } : {}),
  };
  const changed = [
    ...Object.keys(rules).map(ruleField),
    ...Object.keys(rulesets).map(rulesetField),
    ...Object.keys(loadbalancer).map((key) => (key === 'certs_issuer' ? key : flagField(key))),
    ...('subdomain' in patch ? ['subdomains'] : []),
    ...(ipv4Changed ? ['ipv4'] : []),
    ...(ipv6Changed ? ['ipv6'] : []),
    ...(certificate ? ['certificate'] : []),
  ];
  return { patch, changed };
}

/** The form field a provider detail path (`settings.rules.humans`, `ip.0`, `certificate`) belongs to. */
export function fieldOfProviderPath(path: string): string {
  const [head, group, key] = path.split('.');
  if (head === 'settings' && group === 'rules' && key) return ruleField(key);
  if (head === 'settings' && group === 'rulesets' && key) return rulesetField(key);
  if (head === 'settings' && group === 'loadbalancer' && key) return key === 'certs_issuer' ? key : flagField(key);
  if (head === 'subdomain') return 'subdomains';
  if (head === 'ip') return 'ipv4';
  if (head === 'ipv6') return 'ipv6';
  if (head === 'certificate') return 'certificate';
  return 'form';
}

/** A provider's validation refusal as problems by field; null for any other error. */
export function problemsFromProviderError(error: unknown, t: Translate): FieldProblems | null {
  if (!isProviderError(error, 'PROVIDER_VALIDATION')) return null;
  const problems: FieldProblems = {};
  for (const detail of error.details ?? []) {
    problems[fieldOfProviderPath(detail.path)] ??= t('settingsForm.problems.refusedField', { message: detail.message });
  }
  if (Object.keys(problems).length === 0)
    problems.form = t('settingsForm.problems.refusedForm', { message: error.providerMessage ?? error.message });
  return problems;
}

export async function readWebsiteSettings(provider: Pick<ProviderClient, 'lookupWebsite'>, domain: string): Promise<SettingsView> {
  try {
    return settingsViewOf(await provider.lookupWebsite(domain));
  } catch (error) {
    throw providerFailure(error, domain);
  }
}

/** Saved: what changed, and the settings as they now are (the provider's answer), to store as the last known. */
export type SaveSettingsResult = { saved: true; changed: string[]; view: SettingsView } | { saved: false; problems: FieldProblems };

/**
 * Saves a submitted settings form: reads the current settings, sends only what changed, and
 * records the new subdomains and origin addresses locally once the provider accepted them.
 */
export async function saveWebsiteSettings(
  deps: {
    provider: Pick<ProviderClient, 'lookupWebsite' | 'updateWebsite'>;
    accounts: Pick<AccountsRepo, 'saveWebsite'>;
    now: () => number;
  },
  website: Website,
  submission: { body: unknown; files: readonly UploadedFile[]; current?: SettingsView; t: Translate },
): Promise<SaveSettingsResult> {
  const { t } = submission;
  const current = submission.current ?? (await readWebsiteSettings(deps.provider, website.domain));
  const parsed = parseSettingsForm(submission.body, submission.files, current, website.domain, deps.now(), t);
  if (!parsed.ok) return { saved: false, problems: parsed.problems };
  if (parsed.changed.length === 0) return { saved: true, changed: [], view: current };
  let remote: ProviderWebsite;
  try {
    remote = await deps.provider.updateWebsite(website.domain, parsed.patch);
  } catch (error) {
    const problems = problemsFromProviderError(error, t);
    if (problems) return { saved: false, problems };
    throw providerFailure(error, website.domain);
  }
  if (parsed.patch.subdomain || parsed.patch.ip || parsed.patch.ipv6) {
    deps.accounts.saveWebsite({ ...website, subdomains: remote.subdomain, originIps: [...new Set([...remote.ip, ...remote.ipv6])] });
  }
  return { saved: true, changed: parsed.changed, view: settingsViewOf(remote) };
}
