/**
 * The admin Settings page: the limits table at every scope, the plans new websites start
 * from, auto-protect, the notification URL and the secret notifications are signed with, and
 * the history of every such change. The
 * rules are core's (the same as `wpp limits` and `wpp plans set`); each change is recorded
 * with `admin:<name>`. A form with problems comes back (400) with each message next to its
 * field and nothing stored; a stored one redirects (303) to the page with a fixed message.
 * With a fleet database, a limits or plan change may be for all servers (admin-fleet-settings.ts).
 */
import type { Format } from '../../core/format.js';
import type { Translate } from '../../core/i18n.js';
import { isDeepStrictEqual } from 'node:util';
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { applyLimitsChange, LIMIT_SCOPES, LIMIT_VALUE_FIELDS, parseLimitsChange, type IsKnown } from '../../core/limits-change.js';
import { createLimitResolver } from '../../core/limits.js';
import type { LimitLayer } from '../../core/quota.js';
import { resellerUsages } from '../../core/reseller-limits.js';
import { parsePlanChange } from '../../core/plan-change.js';
import { BUILT_IN_PLAN, changePlan, RUNTIME_SETTINGS, type PluginSettings } from '../../core/plugin-settings.js';
import { DEFAULT_PLAN } from '../../core/provisioning.js';
import type { AccountsRepo } from '../../db/accounts.repo.js';
import type { SettingsRepo } from '../../db/settings.repo.js';
import type { StatisticsRepo } from '../../db/statistics.repo.js';
import type { NotifySecret } from '../../secrets.js';
import { AppError } from '../../errors.js';
import { describeSettings, settingPathLabel } from '../../provider/setting-words.js';
import { settingWordsIn } from '../../core/setting-words-i18n.js';
import { errorSummary, type SummaryProblem } from './error-summary.js';
import { GRACE_FIELD_ID, packageGraceRoute, packagesSection, type GraceProblem } from './admin-packages.js';
import type { PackagesRepo } from '../../db/packages.repo.js';
import { sessionAdmin } from './session.middleware.js';
import type { FleetSettings } from '../../core/fleet-settings.js';
import { fleetChoiceView, serversChoice, shareFromPage } from './admin-fleet-settings.js';

export interface SettingsPagesDeps {
  stats: StatisticsRepo;
  audit: SettingsRepo;
  accounts: AccountsRepo;
  settings: PluginSettings;
  /** The environment's values (WPP_AUTO_PROTECT, WPP_NOTIFY_URL): what applies without an override. */
  environment: { autoProtect: boolean; notifyUrl: string | undefined };
  /**
   * What notifications are signed with. A generated one is shown (admins only: the whole router
   * is behind the admin guard), for the admin to give to the receiver; WPP_NOTIFY_SECRET is the
   * administrator's own and is not repeated.
   */
  notifySecret: NotifySecret;
  /** The clock of the reseller pools' usage shown; Date.now when absent. */
  now?: () => number;
  /** Protection per hosting package (admin-packages.ts); absent: the page has no packages section. */
  packages?: PackagesRepo;
  /** Fleet settings (WPP_FLEET_DATABASE_URL, wpp serve): the limits and plan forms offer "All servers"; absent: this server only. */
  fleet?: FleetSettings | undefined;
}

/** A form as shown: the values typed, and the problems by field ('' for the form as a whole). */
export interface FormState {
  values: Record<string, string>;
  problems: Record<string, string[]>;
}
type Forms = Record<'limits' | 'plan' | 'notifyUrl' | 'resellerPool', FormState>;
const FORM_NAMES = ['limits', 'resellerPool', 'plan', 'notifyUrl'] as const;

/**
 * Each form's fields: the key of the label the page shows (adminSettings.fields.*) and the id of
 * the control, in the page's order. The page (views/admin/settings.ejs) and the error summary
 * both name a field from here.
 */
export const SETTINGS_FIELDS: Record<keyof Forms, Record<string, { id: string; label: string }>> = {
  limits: {
    scope: { id: 'limit-scope', label: 'scope' },
    subject: { id: 'limit-subject', label: 'subject' },
    period: { id: 'limit-period', label: 'period' },
    'website-hits': { id: 'limit-website-hits', label: 'websiteHits' },
    'account-hits': { id: 'limit-account-hits', label: 'accountHits' },
    'domain-limit': { id: 'limit-domain-limit', label: 'domainLimit' },
    'warning-percent': { id: 'limit-warning-percent', label: 'warningPercent' },
    'anchor-day': { id: 'limit-anchor-day', label: 'anchorDay' },
    exempt: { id: 'limit-exempt', label: 'exempt' },
    'allow-unknown': { id: 'limit-allow-unknown', label: 'allowUnknown' },
  },
  plan: {
    name: { id: 'plan-name', label: 'planName' },
    settings: { id: 'plan-settings', label: 'planSettings' },
    subdomains: { id: 'plan-subdomains', label: 'subdomains' },
    monitorDays: { id: 'plan-monitor-days', label: 'monitorDays' },
  },
  notifyUrl: { url: { id: 'notify-url', label: 'notifyUrl' } },
  // A reseller's pool: the limits row of scope reseller (core/reseller-limits.ts).
  resellerPool: {
    subject: { id: 'pool-reseller', label: 'reseller' },
    'pool-hits': { id: 'pool-hits', label: 'poolHits' },
    period: { id: 'pool-period', label: 'period' },
    'anchor-day': { id: 'pool-anchor-day', label: 'anchorDay' },
    'warning-percent': { id: 'pool-warning-percent', label: 'warningPercent' },
  },
};

/** The error summary of the forms sent back: each problem named by its field's label, in the page's order. */
export function settingsErrorSummary(forms: Partial<Forms>, t: Translate) {
  const problems: SummaryProblem[] = [];
  for (const name of FORM_NAMES) {
    const form = forms[name];
    if (!form) continue;
    const fields = SETTINGS_FIELDS[name];
    for (const message of form.problems[''] ?? []) problems.push({ id: undefined, label: undefined, message });
    for (const [field, { id, label }] of Object.entries(fields))
      for (const message of form.problems[field] ?? []) problems.push({ id, label: t(`adminSettings.fields.${label}`), message });
  }
  return errorSummary(problems, t('adminSettings.nothingSaved'));
}

/** The message after a save, by what was saved (adminSettings.saved.*). */
const SAVED_MESSAGES = {
  limits: 'limits',
  plan: 'plan',
  'auto-protect': 'autoProtect',
  'notify-url': 'notifyUrl',
  'reseller-pool': 'resellerPool',
  'package-grace': 'packageGrace',
  'limits-fleet': 'limits',
  'plan-fleet': 'plan',
} as const;
type Saved = keyof typeof SAVED_MESSAGES;
/** The grace period's words are its part's (packages.*); the rest adminSettings.saved.*. */
const savedKey = (saved: Saved) =>
  saved === 'package-grace'
    ? 'packages.settings.graceSaved'
    : saved.endsWith('-fleet')
      ? `fleetSettings.saved.${SAVED_MESSAGES[saved]}`
      : `adminSettings.saved.${SAVED_MESSAGES[saved]}`;

/** Text fields: trimmed, empty means not given. A field given twice cannot be read (no browser sends that). */
const text = z
  .string()
  .trim()
  .optional()
  .transform((value) => (value === '' ? undefined : value));
export const limitsForm = z.object({
  scope: text,
  subject: text,
  'allow-unknown': z.literal('on').optional(),
  ...Object.fromEntries(LIMIT_VALUE_FIELDS.map((name) => [name, text])),
});
const resellerPoolForm = z.object({
  subject: text,
  'pool-hits': text,
  period: text,
  'anchor-day': text,
  'warning-percent': text,
});
const planForm = z.object({ name: z.string().optional().default(''), settings: text, subdomains: text, monitorDays: text });
const autoProtectForm = z.object({ action: z.enum(['on', 'off', 'environment']) });
const notifyUrlForm = z.object({ action: z.enum(['set', 'off', 'environment']), url: z.string().optional().default('') });

export function readForm<S extends z.ZodType>(schema: S, req: Request, res: Response): z.output<S> {
  const parsed = schema.safeParse(req.body ?? {});
  if (!parsed.success) throw new AppError('BAD_REQUEST', (res.locals.t as Translate)('adminSettings.cannotRead'));
  return parsed.data;
}

export const emptyForm = (): FormState => ({ values: {}, problems: {} });
const adminActor = (req: Request) => `admin:${sessionAdmin(req)}`;
export const addProblem = (form: FormState, field: string, message: string) => {
  (form.problems[field] ??= []).push(message);
};
/** The typed values, to show the form again as it was sent. */
export const typed = (body: unknown): Record<string, string> =>
  Object.fromEntries(
    Object.entries((body ?? {}) as Record<string, unknown>).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** A recorded change as lines `key: before → after`, of what differs only (a limits row has seven values, one changed). */
export function changeLines(before: unknown, after: unknown, t: Translate): string[] {
  const shown = (value: unknown) =>
    value === null || value === undefined
      ? t('adminSettings.history.noValue')
      : typeof value === 'boolean'
        ? t(`adminSettings.history.${value}`)
        : typeof value === 'string'
          ? value
          : JSON.stringify(value);
  if (!isRecord(before) && !isRecord(after)) return [`${shown(before)} → ${shown(after)}`];
  const was = isRecord(before) ? before : {};
  const is = isRecord(after) ? after : {};
  const keys = [...new Set([...Object.keys(was), ...Object.keys(is)])].filter(
    (key) => !isDeepStrictEqual(was[key] ?? null, is[key] ?? null),
  );
  return keys.length > 0 ? keys.map((key) => `${key}: ${shown(was[key])} → ${shown(is[key])}`) : [t('adminSettings.history.noChange')];
}

/**
 * Everything the page shows; `forms` are the forms sent back with their problems, `grace` the
 * grace days refused. The limits table is read once for all of it (rows, pools, packages).
 */
function settingsPage(deps: SettingsPagesDeps, forms: Partial<Forms>, saved: Saved | undefined, res: Response, grace?: GraceProblem) {
  const format = res.locals.format as Pick<Format, 'dateTime'>;
  const t = res.locals.t as Translate;
  const overrides = deps.settings.overrides();
  const source = (name: 'auto_protect' | 'notify_url') => {
    const override = overrides[name];
    return override
      ? t('adminSettings.runtime.changedBy', { who: override.updatedBy, when: format.dateTime(override.updatedAt) })
      : t('adminSettings.runtime.fromEnvironment');
  };
  const plans = deps.accounts.listPlans();
  const layers = deps.stats.limitLayers();
  const describeWords = {
    ...settingWordsIn(t),
    on: t('adminSettings.runtime.environmentOn'),
    off: t('adminSettings.runtime.environmentOff'),
  };
  return {
    title: t('adminSettings.title'),
    ...(saved ? { flash: { kind: 'ok', message: t(savedKey(saved)) } } : {}),
    // A reseller's row has its own form (the pool), with the resellers to choose from.
    scopes: LIMIT_SCOPES.filter((scope) => scope !== 'reseller'),
    ...resellerPools(deps, layers),
    limitRows: [...layers].map(([key, layer]) => {
      const [scope = '', ...rest] = key.split(':');
      return { scope, subject: rest.join(':'), layer };
    }),
    plans: plans.some((plan) => plan.name === DEFAULT_PLAN) ? plans : [{ name: DEFAULT_PLAN, ...BUILT_IN_PLAN, builtIn: true }, ...plans],
    current: deps.settings.current(),
    sources: { autoProtect: source('auto_protect'), notifyUrl: source('notify_url') },
    environment: deps.environment,
    notifySecret: deps.notifySecret.source === 'generated' ? deps.notifySecret : { source: 'environment' },
    changes: deps.audit
      .listChanges({ limit: 50 })
      .map((change) => ({ ...change, when: format.dateTime(change.at), lines: changeLines(change.before, change.after, t) })),
    forms: { limits: emptyForm(), plan: emptyForm(), notifyUrl: emptyForm(), resellerPool: emptyForm(), ...forms },
    fields: SETTINGS_FIELDS,
    // A plan's provider settings in the page's language: the same words as the customer's settings form.
    describeSettings: (settings: Parameters<typeof describeSettings>[0]) => describeSettings(settings, describeWords),
    ...(Object.keys(forms).length > 0 ? { errorSummary: settingsErrorSummary(forms, t) } : {}),
    ...(deps.packages ? packagesSection({ ...deps, packages: deps.packages }, res, layers, grace) : {}),
    ...fleetChoiceView(deps.fleet),
  };
}

/** The resellers the admin can give a pool (known from their row or an account), and each pool set with its usage now. */
function resellerPools(deps: SettingsPagesDeps, layers: Map<string, LimitLayer>) {
  const now = (deps.now ?? Date.now)();
  const limits = createLimitResolver(deps.stats, deps.accounts, layers);
  const pooled = [...layers.keys()].filter((key) => key.startsWith('reseller:')).map((key) => key.slice('reseller:'.length));
  return {
    resellers: deps.stats.resellerSubjects(),
    resellerPools: [...resellerUsages(deps, pooled, now, limits).values()],
  };
}

// The page shows a secret: no copy of it may stay in a cache.
function renderProblems(res: Response, deps: SettingsPagesDeps, forms: Partial<Forms>) {
  res
    .status(400)
    .set('Cache-Control', 'no-store')
    .render('admin/settings', settingsPage(deps, forms, undefined, res));
}
/** A problem inside the plan's settings names the setting as the customer's form does, and its key as typed: "People (rules.humans): …". */
function planProblemWords(path: PropertyKey[], message: string): string {
  if (path.length === 0) return message;
  const key = path.map(String).join('.');
  const label = settingPathLabel(path);
  return `${label ? `${label} (${key})` : key}: ${message}`;
}

const saved = (res: Response, what: Saved, anchor: string) => res.redirect(303, `/admin/settings?saved=${what}#${anchor}`);

export function createSettingsRouter(deps: SettingsPagesDeps): express.Router {
  const router = express.Router();
  // The default plan is every plan-less account's, so it is always known (as for `wpp limits`).
  const isKnown: IsKnown = (scope, subject) =>
    (scope === 'plan' && subject === DEFAULT_PLAN) || deps.stats.limitSubjectExists(scope, subject);

  router.get('/settings', (req, res) => {
    const what = typeof req.query.saved === 'string' && req.query.saved in SAVED_MESSAGES ? (req.query.saved as Saved) : undefined;
    res.set('Cache-Control', 'no-store').render('admin/settings', settingsPage(deps, {}, what, res));
  });

  router.post('/settings/limits', async (req, res) => {
    const t = res.locals.t as Translate;
    const form = readForm(limitsForm, req, res) as Record<string, string | undefined>;
    const result = parseLimitsChange({ ...form, allowUnknown: form['allow-unknown'] === 'on' }, isKnown, t);
    if (result === null || !result.ok) {
      const state: FormState = { values: typed(req.body), problems: {} };
      if (result === null) addProblem(state, 'scope', t('adminSettings.chooseScope'));
      for (const problem of result?.ok === false ? result.problems : []) addProblem(state, problem.field ?? '', problem.message);
      return renderProblems(res, deps, { limits: state });
    }
    if (deps.fleet && serversChoice(deps.fleet, req) === 'all') {
      const refused = await shareFromPage(deps.fleet, { kind: 'limits', change: result.change }, adminActor(req), t);
      if (refused) return renderProblems(res, deps, { limits: { values: typed(req.body), problems: { '': [refused] } } });
      return saved(res, 'limits-fleet', 'limits');
    }
    applyLimitsChange(deps, result.change, adminActor(req));
    saved(res, 'limits', 'limits');
  });

  router.post('/settings/reseller-pool', (req, res) => {
    const t = res.locals.t as Translate;
    const form = readForm(resellerPoolForm, req, res);
    const result = parseLimitsChange({ ...form, scope: 'reseller' }, isKnown, t);
    if (result === null || !result.ok) {
      const state: FormState = { values: typed(req.body), problems: {} };
      for (const problem of result?.ok === false ? result.problems : []) addProblem(state, problem.field ?? '', problem.message);
      return renderProblems(res, deps, { resellerPool: state });
    }
    applyLimitsChange(deps, result.change, adminActor(req));
    saved(res, 'reseller-pool', 'reseller-pools');
  });

  router.post('/settings/plans', async (req, res) => {
    const form = readForm(planForm, req, res);
    const result = parsePlanChange(form, res.locals.t as Translate);
    if (!result.ok) {
      const state: FormState = { values: typed(req.body), problems: {} };
      for (const { field, path, message } of result.problems) addProblem(state, field ?? '', planProblemWords(path, message));
      return renderProblems(res, deps, { plan: state });
    }
    if (deps.fleet && serversChoice(deps.fleet, req) === 'all') {
      const t = res.locals.t as Translate;
      const refused = await shareFromPage(deps.fleet, { kind: 'plan', change: result.change }, adminActor(req), t);
      if (refused) return renderProblems(res, deps, { plan: { values: typed(req.body), problems: { '': [refused] } } });
      return saved(res, 'plan-fleet', 'plans');
    }
    changePlan(deps, result.change, adminActor(req));
    saved(res, 'plan', 'plans');
  });

  router.post('/settings/auto-protect', (req, res) => {
    const { action } = readForm(autoProtectForm, req, res);
    const actor = adminActor(req);
    if (action === 'environment') deps.settings.resetSetting('auto_protect', actor);
    else deps.settings.changeSetting('auto_protect', action === 'on', actor);
    saved(res, 'auto-protect', 'runtime');
  });

  router.post('/settings/notify-url', (req, res) => changeNotifyUrl(deps, req, res));
  if (deps.packages) {
    const packageDeps = { ...deps, packages: deps.packages };
    router.use(
      packageGraceRoute(packageDeps, (res, grace) => {
        const t = res.locals.t as Translate;
        res
          .status(400)
          .set('Cache-Control', 'no-store')
          .render('admin/settings', {
            ...settingsPage(deps, {}, undefined, res, grace),
            errorSummary: errorSummary(
              [{ id: GRACE_FIELD_ID, label: t('packages.settings.graceLabel'), message: grace.problem }],
              t('adminSettings.nothingSaved'),
            ),
          });
      }),
    );
  }
  return router;
}

/** Sets the notification URL (checked, the message next to the field), turns notifications off, or back to the environment's. */
function changeNotifyUrl(deps: SettingsPagesDeps, req: Request, res: Response) {
  const { action, url } = readForm(notifyUrlForm, req, res);
  const t = res.locals.t as Translate;
  const actor = adminActor(req);
  if (action === 'environment') deps.settings.resetSetting('notify_url', actor);
  else if (action === 'off') deps.settings.changeSetting('notify_url', null, actor);
  else {
    const parsed = RUNTIME_SETTINGS.notify_url.safeParse(url);
    if (!parsed.success || parsed.data === null) {
      const state: FormState = { values: { url }, problems: {} };
      // The schema has one rule (an absolute http(s) URL), so any problem is that one.
      addProblem(state, 'url', url.trim() === '' ? t('adminSettings.enterUrl') : t('adminSettings.notHttpUrl'));
      return renderProblems(res, deps, { notifyUrl: state });
    }
    deps.settings.changeSetting('notify_url', parsed.data, actor);
  }
  saved(res, 'notify-url', 'runtime');
}
