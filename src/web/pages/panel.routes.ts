/**
 * The customer's pages (views/panel/): their own account's domains only. The account comes
 * from the session, never from the URL or a form, so another account's domain is a 404,
 * for every page and every form, and changes nothing. Forms post, then redirect (303) to a
 * page showing a fixed message named by `?done=`: nothing the user typed is echoed back.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { currentForecast, forecastLimitReached, forecastWords } from '../../core/forecast.js';
import type { Format } from '../../core/format.js';
import type { Translate } from '../../core/i18n.js';
import { accountUsageNow, createLimitResolver, type AccountUsage, type LimitResolver } from '../../core/limits.js';
import { isMonitoring } from '../../core/monitoring.js';
import type { Protection } from '../../core/protection.js';
import { TRAFFIC_RANGES, trafficView, trafficWindow, type TrafficRange } from '../../core/traffic-view.js';
import type { Website } from '../../core/types.js';
import { createSettingsReader } from '../../core/settings-snapshot.js';
import { saveWebsiteSettings, submittedForm, type UploadedFile } from '../../core/website-settings.js';
import { NOTICES_READ, spikeNotices } from '../../core/website-notices.js';
import { accountHeader, nearLimitSentence, pausedByLimit } from '../../core/usage-words.js';
import { customerActions, describeWebsite, type CustomerAction } from '../../core/website-state.js';
import type { AccountsRepo } from '../../db/accounts.repo.js';
import type { ReadScheduleRepo } from '../../db/read-schedule.repo.js';
import type { SettingsSnapshotsRepo } from '../../db/settings-snapshots.repo.js';
import type { StatisticsRepo } from '../../db/statistics.repo.js';
import { AppError } from '../../errors.js';
import { normalizeDomain, type ProviderClient } from '../../provider/index.js';
import { rulesEditorUrl } from '../../config.js';
import { knownSettingsLocals, settingsErrorSummary, settingsVocabulary, type SettingsLocals } from './domain-settings.js';
import { probeRulesEditor } from './rules-editor.js';
import { pageUser } from './session.middleware.js';

export interface PanelPagesDeps {
  accounts: AccountsRepo;
  stats: StatisticsRepo;
  /** The adaptive sync's forecasts and attack-spike notices. */
  schedule: Pick<ReadScheduleRepo, 'get' | 'accountForecast' | 'notices'>;
  provider: Pick<ProviderClient, 'lookupWebsite' | 'updateWebsite'>;
  /** The last settings read of each website, shown while a read behind the page refreshes them. */
  settingsSnapshots: Pick<SettingsSnapshotsRepo, 'get' | 'saveRead' | 'saveFailure'>;
  protection: Pick<Protection, 'protect' | 'pause' | 'resume' | 'retry'>;
  /** The rules editor's URL template ({domain}, {lang}, {api_key}); undefined: no editor to offer. */
  rulesEditorTemplate: string | undefined;
  /** The host's upgrade page template (WPP_UPGRADE_URL: {account}, {domain}); undefined: "contact your host". */
  upgradeUrl?: string | undefined;
  now: () => number;
  /** When the website's monitoring ends (core/monitoring.ts), or null. */
  monitoringUntil?: (domain: string) => number | null;
  /** Whether the account's hosting package includes web protection (core/package-protection.ts); absent: every package does. */
  protectionIncluded?: (account: string) => boolean;
}

/** The settings form, the one form of the pages that uploads files (a certificate and its key, as multipart). */
export const CERTIFICATE_FORM = '/domains/:domain/settings';

/** The account of a customer's session. */
export function sessionAccount(req: Request): string {
  const user = pageUser(req);
  if (user.role !== 'customer') throw new Error('a customer page reached without a customer session');
  return user.account;
}

/**
 * The messages a redirect after a form may show, by the fixed word in `?done=` (their words:
 * customers.done.* of the catalogs). A pause is what the customer asked for but leaves the
 * website unprotected: a warning, not a success.
 */
const DONE_KINDS: Record<string, 'ok' | 'warn'> = {
  protected: 'ok',
  paused: 'warn',
  resumed: 'ok',
  retried: 'ok',
  saved: 'ok',
  unchanged: 'ok',
};

const flashOf = (req: Request, res: Response) => {
  const done = typeof req.query.done === 'string' && Object.hasOwn(DONE_KINDS, req.query.done) ? req.query.done : null;
  return done === null ? null : { kind: DONE_KINDS[done] as 'ok' | 'warn', message: translateOf(res)(`customers.done.${done}`) };
};

/** The one formatter the pages router made (pages.routes.ts). */
const formatOf = (res: Response) => res.locals.format as Format;
/** The page's messages, in its language (pages.routes.ts). */
const translateOf = (res: Response) => res.locals.t as Translate;

const rangeSchema = z.enum(Object.keys(TRAFFIC_RANGES) as [TrafficRange, ...TrafficRange[]]).catch('24h');

/** Where an action form sends the browser back to: a fixed choice, never an address from the form. */
const returnSchema = z.enum(['list', 'domain']).catch('domain');

/** The session account's own active website, or NOT_FOUND exactly as for a domain that does not exist. */
function ownWebsite(req: Request, accounts: Pick<AccountsRepo, 'getWebsite'>): Website {
  const account = sessionAccount(req);
  const domain = normalizeDomain(String(req.params.domain ?? ''));
  const website = domain ? accounts.getWebsite(domain) : null;
  if (!website || website.account !== account || website.state !== 'active') {
    // In the page's language: express gives the request its response (req.res), where the language is.
    throw new AppError('NOT_FOUND', translateOf(req.res as Response)('customers.notFound'));
  }
  return website;
}

/**
 * A suspended or deleted account gets one page saying so, on every route and method, with no
 * form and no link to the rules editor (its address carries the customer's provider key).
 */
function closedAccountPage(accounts: Pick<AccountsRepo, 'accountState'>) {
  return (req: Request, res: Response, next: NextFunction) => {
    const state = accounts.accountState(sessionAccount(req));
    if (state !== 'suspended' && state !== 'deleted') return next();
    const title = translateOf(res)(state === 'suspended' ? 'accountClosed.suspendedTitle' : 'accountClosed.removedTitle');
    res.status(403).set('Cache-Control', 'no-store').render('panel/account-closed', { title, state });
  };
}

/**
 * An account whose hosting package does not include web protection: the panel shows it no menu
 * entry, but a bookmarked or hand-made launch still lands here, and it says why (every page and form).
 */
function notInPackagePage(protectionIncluded: (account: string) => boolean) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (protectionIncluded(sessionAccount(req))) return next();
    res
      .status(403)
      .set('Cache-Control', 'no-store')
      .render('panel/not-in-package', { title: translateOf(res)('packages.notIncluded.title') });
  };
}

export function createPanelRouter(deps: PanelPagesDeps): express.Router {
  const router = express.Router();
  const settings = createSettingsReader({ provider: deps.provider, snapshots: deps.settingsSnapshots, now: deps.now });
  router.use(closedAccountPage(deps.accounts));
  if (deps.protectionIncluded) router.use(notInPackagePage(deps.protectionIncluded));
  router.get('/', (req: Request, res: Response) => {
    const account = sessionAccount(req);
    res.set('Cache-Control', 'no-store').render('panel/domains', {
      title: translateOf(res)('customers.title'),
      account,
      ...domainsPage(deps, account, formatOf(res), translateOf(res)),
      flash: flashOf(req, res),
    });
  });

  router.get('/domains/:domain', async (req: Request, res: Response) => {
    const website = ownWebsite(req, deps.accounts);
    const range = rangeSchema.parse(req.query.range);
    // Not accepted by the provider yet (setting up, or refused): there are no settings there to read.
    const known: SettingsLocals =
      website.provisionedAt === null
        ? { view: null, form: null, problems: {}, settingsNote: { reason: 'not_provisioned' } }
        : knownSettingsLocals(await settings.known(website.domain));
    renderDomainPage(res, 200, deps, website, range, { ...known, flash: flashOf(req, res) });
  });

  router.post(CERTIFICATE_FORM, async (req: Request, res: Response) => {
    const website = ownWebsite(req, deps.accounts);
    // Saving compares with the provider's settings as they are now: this one read is waited for.
    const current = await settings.refresh(website.domain);
    const files = (Array.isArray(req.files) ? req.files : []) as UploadedFile[];
    const result = await saveWebsiteSettings(deps, website, { body: req.body, files, current, t: translateOf(res) });
    if (result.saved) {
      settings.store(website.domain, result.view);
      res.redirect(303, `${domainPath(website)}?done=${result.changed.length > 0 ? 'saved' : 'unchanged'}#settings`);
      return;
    }
    renderDomainPage(res, 400, deps, website, '24h', {
      view: current,
      form: submittedForm(req.body, current),
      problems: result.problems,
      errorSummary: settingsErrorSummary(result.problems, translateOf(res)),
      flash: null,
    });
  });

  addActionRoutes(router, deps);
  addRulesEditorRoutes(router, deps);
  return router;
}

/**
 * POST .../protect, .../resume: one click each, then back to the list or the domain. Pausing
 * leaves the website unprotected, so it is asked first (GET .../pause, a page that needs no
 * script) and done only by that page's form, which posts `confirm=yes`; a POST without it
 * (an old one-click form) is sent to the question, and nothing is paused.
 */
function addActionRoutes(router: express.Router, deps: PanelPagesDeps): void {
  router.get('/domains/:domain/pause', (req: Request, res: Response) => {
    const website = ownWebsite(req, deps.accounts);
    const back = returnSchema.parse(req.query.return_to);
    res.set('Cache-Control', 'no-store').render('panel/pause-confirm', {
      title: translateOf(res)('customers.pauseConfirm.title', { domain: website.domain }),
      website,
      returnTo: back,
      cancelHref: back === 'list' ? '/panel' : domainPath(website),
    });
  });
  for (const action of ['protect', 'pause', 'resume'] as const) {
    router.post(`/domains/:domain/${action}`, async (req: Request, res: Response) => {
      const website = ownWebsite(req, deps.accounts);
      const body = req.body as Record<string, unknown> | undefined;
      if (action === 'pause' && body?.confirm !== 'yes') {
        res.redirect(303, `${domainPath(website)}/pause?return_to=${returnSchema.parse(body?.return_to)}`);
        return;
      }
      refuseUnlessOffered(website, action, translateOf(res));
      await deps.protection[action](website.domain, { kind: 'customer', account: website.account });
      const done = { protect: 'protected', pause: 'paused', resume: 'resumed' }[action];
      const back = returnSchema.parse(body?.return_to);
      res.redirect(303, back === 'list' ? `/panel?done=${done}` : `${domainPath(website)}?done=${done}`);
    });
  }
  // Try again: a website the provider refused is provisioned again (core/protection.ts retry; offered then only).
  router.post('/domains/:domain/retry', (req: Request, res: Response) => {
    const website = ownWebsite(req, deps.accounts);
    refuseUnlessOffered(website, 'retry', translateOf(res));
    deps.protection.retry(website.domain, { kind: 'customer', account: website.account });
    const back = returnSchema.parse((req.body as Record<string, unknown> | undefined)?.return_to);
    res.redirect(303, back === 'list' ? '/panel?done=retried' : `${domainPath(website)}?done=retried`);
  });
}

/**
 * Only the actions the page offers (a limit or host pause offers no resume; monitoring offers
 * Protect now), refused in the page's language with the website's state; core/protection.ts
 * checks again for every caller.
 */
function refuseUnlessOffered(website: Website, action: CustomerAction, t: Translate): void {
  if (customerActions(website).includes(action) || (action === 'protect' && isMonitoring(website))) return;
  const { summary } = describeWebsite(website, t, 'customer');
  throw new AppError('CONFLICT', t(`customers.refused.${action}`, { domain: website.domain, summary }));
}

/** The rules editor page, and the probe its script asks whether the editor answers and may be framed here. */
function addRulesEditorRoutes(router: express.Router, deps: PanelPagesDeps): void {
  router.get('/domains/:domain/rules', (req: Request, res: Response) => {
    const website = ownWebsite(req, deps.accounts);
    const frameUrl = editorUrlFor(deps, website, res.locals.locale as string);
    res
      .set('Cache-Control', 'no-store')
      .render('panel/rules', { title: translateOf(res)('rules.title', { domain: website.domain }), website, frameUrl });
  });

  router.get('/domains/:domain/rules/check', async (req: Request, res: Response) => {
    const website = ownWebsite(req, deps.accounts);
    const frameUrl = editorUrlFor(deps, website, res.locals.locale as string);
    const pageOrigin = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    res.set('Cache-Control', 'no-store').json({ status: frameUrl ? await probeRulesEditor(frameUrl, pageOrigin) : 'unreachable' });
  });
}

/** The chart's data for views/static/charts.js, its series named in the page's language, safe inside a script element. */
const chartJson = (series: { x: number[]; permitted: number[]; blocked: number[] }, t: Translate) =>
  JSON.stringify({
    x: series.x,
    series: [
      { label: t('domain.traffic.permitted'), values: series.permitted },
      { label: t('domain.traffic.blocked'), values: series.blocked },
    ],
  }).replace(/</g, '\\u003c');

const domainPath = (website: Website) => `/panel/domains/${encodeURIComponent(website.domain)}`;

/** The customer's own editor address (their API key inside, the page's language as {lang}), or undefined when there is no editor or no key. */
function editorUrlFor(deps: PanelPagesDeps, website: Website, lang: string): string | undefined {
  const apiKey = deps.accounts.getAccount(website.account)?.providerApiKey;
  if (!deps.rulesEditorTemplate || !apiKey) return undefined;
  return rulesEditorUrl(deps.rulesEditorTemplate, { domain: website.domain, lang, apiKey });
}

/**
 * My domains: the account header (hits this period against the account's limit, the reset
 * day, the forecast) and each active domain with its state, actions, usage this period, the
 * sentence when its limit is near, and the day and hour a limit will be reached at the
 * current rate (its own limit, or the account's, whichever comes first): one usage query and
 * one limits read for all.
 */
function domainsPage(deps: PanelPagesDeps, account: string, format: Format, t: Translate) {
  const now = deps.now();
  const limits = createLimitResolver(deps.stats, deps.accounts);
  const usage = accountUsageNow(deps, account, now, limits);
  const { period, websites, accountHits, accountLimit } = usage;
  const accountSide = { usage: accountHits, limit: accountLimit, stored: deps.schedule.accountForecast(account) };
  let accountForecast: number | null | undefined;
  const rows = websites.map(({ website, hits, limit, exempt }) => {
    const forecast = currentForecast({
      now,
      periodEnd: period.end,
      counted: period,
      website: { usage: hits, limit, stored: deps.schedule.get(website.domain) },
      account: accountSide,
    });
    accountForecast ??= forecast.account;
    return {
      website,
      state: describeWebsite(website, t, 'customer'),
      actions: customerActions(website),
      hits,
      limit,
      near: nearLimitSentence({ usage: hits, limit, warningPercent: limits.forWebsite(website.domain, account).warningPercent }, format, t),
      // An exempt website is never paused: neither limit is reached for it.
      limitReachedOn: forecastWords(exempt ? null : earliest(forecast.website, forecast.account), now, format, t),
    };
  });
  return { rows, header: accountHeaderOf(usage, limits, account, accountForecast, now, format, t) };
}

/** The account header's words; the account's forecast from the rows', else (no website yet) the period average. */
function accountHeaderOf(
  usage: AccountUsage,
  limits: LimitResolver,
  account: string,
  forecast: number | null | undefined,
  now: number,
  format: Format,
  t: Translate,
) {
  const { period, accountHits, accountLimit } = usage;
  const forecastAt =
    forecast !== undefined
      ? forecast
      : forecastLimitReached({ usage: accountHits, limit: accountLimit, periodStart: period.start, periodEnd: period.end, now });
  return accountHeader(
    { hits: accountHits, limit: accountLimit, warningPercent: limits.forAccount(account).warningPercent, period, forecastAt, now },
    format,
    t,
  );
}

const earliest = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));

function renderDomainPage(
  res: Response,
  status: number,
  deps: PanelPagesDeps,
  website: Website,
  range: TrafficRange,
  locals: SettingsLocals & { flash: { kind: string; message: string } | null },
): void {
  const now = deps.now();
  const format = formatOf(res);
  const t = translateOf(res);
  const limits = createLimitResolver(deps.stats, deps.accounts);
  const period = limits.periodOf(website.account, now);
  const own = limits.forWebsite(website.domain, website.account);
  const { fromHour, toHour } = trafficWindow(now);
  const traffic = trafficView(deps.stats.hourlyHits({ domain: website.domain }, fromHour, toHour), now, range, website.createdAt);
  const hits = deps.stats.websiteUsage(website.domain, period.start);
  const limit = own.exempt ? null : own.websiteHits;
  res
    .status(status)
    .set('Cache-Control', 'no-store')
    .render('panel/domain', {
      title: website.domain,
      charts: true,
      website,
      state: describeWebsite(website, t, 'customer'),
      actions: customerActions(website),
      monitoringUntil: deps.monitoringUntil?.(website.domain) ?? null,
      usage: { hits, limit, period, near: nearLimitSentence({ usage: hits, limit, warningPercent: own.warningPercent }, format, t) },
      pausedByLimit:
        website.pausedBy === 'enforcement'
          ? pausedByLimit(
              {
                since: deps.stats.latestPauseAt(website.domain),
                period,
                account: website.account,
                domain: website.domain,
                upgradeUrl: deps.upgradeUrl,
              },
              format,
              t,
            )
          : null,
      range,
      ranges: Object.keys(TRAFFIC_RANGES),
      traffic,
      chartJson: chartJson(traffic.series, translateOf(res)),
      mitigation: deps.stats.latestMitigation(website.domain),
      spikes: spikeNotices(deps.schedule.notices(website.domain, NOTICES_READ), now, format),
      vocabulary: settingsVocabulary(translateOf(res)),
      hasEditor: deps.rulesEditorTemplate !== undefined && website.provisionedAt !== null,
      ...locals,
    });
}
