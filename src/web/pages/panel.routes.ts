/**
 * The customer's pages (views/panel/): their own account's domains only. The account comes
 * from the session, never from the URL or a form, so another account's domain is a 404,
 * for every page and every form, and changes nothing. Forms post, then redirect (303) to a
 * page showing a fixed message named by `?done=`: nothing the user typed is echoed back.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { currentForecast, forecastWords } from '../../core/forecast.js';
import { accountUsageNow, createLimitResolver } from '../../core/limits.js';
import type { Protection } from '../../core/protection.js';
import { TRAFFIC_RANGES, trafficView, trafficWindow, type TrafficRange } from '../../core/traffic-view.js';
import type { Website } from '../../core/types.js';
import {
  formOf,
  readWebsiteSettings,
  saveWebsiteSettings,
  submittedForm,
  type FieldProblems,
  type SettingsForm,
  type SettingsView,
  type UploadedFile,
} from '../../core/website-settings.js';
import { NOTICES_READ, spikeNotices } from '../../core/website-notices.js';
import { customerActions, describeWebsite } from '../../core/website-state.js';
import type { AccountsRepo } from '../../db/accounts.repo.js';
import type { ReadScheduleRepo } from '../../db/read-schedule.repo.js';
import type { StatisticsRepo } from '../../db/statistics.repo.js';
import { AppError } from '../../errors.js';
import {
  CERTS_ISSUERS,
  LOADBALANCER_FLAGS,
  normalizeDomain,
  RULE_CATEGORIES,
  RULE_POLICIES,
  RULESETS,
  type ProviderClient,
} from '../../provider/index.js';
import { rulesEditorUrl } from '../../config.js';
import { probeRulesEditor } from './rules-editor.js';
import { pageUser } from './session.middleware.js';

export interface PanelPagesDeps {
  accounts: AccountsRepo;
  stats: StatisticsRepo;
  /** The adaptive sync's forecasts and attack-spike notices. */
  schedule: Pick<ReadScheduleRepo, 'get' | 'accountForecast' | 'notices'>;
  provider: Pick<ProviderClient, 'lookupWebsite' | 'updateWebsite'>;
  protection: Pick<Protection, 'protect' | 'pause' | 'resume'>;
  /** The rules editor's URL template ({domain}, {lang}, {api_key}); undefined: no editor to offer. */
  rulesEditorTemplate: string | undefined;
  now: () => number;
}

/** The settings form, the one form of the pages that uploads files (a certificate and its key, as multipart). */
export const CERTIFICATE_FORM = '/domains/:domain/settings';

/** The account of a customer's session. */
export function sessionAccount(req: Request): string {
  const user = pageUser(req);
  if (user.role !== 'customer') throw new Error('a customer page reached without a customer session');
  return user.account;
}

/** The messages a redirect after a form may show, by the fixed word in `?done=`. */
const DONE_MESSAGES: Record<string, string> = {
  protected: 'Protection requested. The protection service now waits for the domain’s DNS, if it is not set yet.',
  paused: 'Protection paused: visitors now reach the website directly.',
  resumed: 'Protection resumed.',
  saved: 'Settings saved at the protection service.',
  unchanged: 'Nothing to save: no setting was changed.',
};

const flashOf = (req: Request) => {
  const message = typeof req.query.done === 'string' ? DONE_MESSAGES[req.query.done] : undefined;
  return message ? { kind: 'ok', message } : null;
};

const rangeSchema = z.enum(Object.keys(TRAFFIC_RANGES) as [TrafficRange, ...TrafficRange[]]).catch('24h');

/** Where an action form sends the browser back to: a fixed choice, never an address from the form. */
const returnSchema = z.enum(['list', 'domain']).catch('domain');

/** The session account's own active website, or NOT_FOUND exactly as for a domain that does not exist. */
function ownWebsite(req: Request, accounts: Pick<AccountsRepo, 'getWebsite'>): Website {
  const account = sessionAccount(req);
  const domain = normalizeDomain(String(req.params.domain ?? ''));
  const website = domain ? accounts.getWebsite(domain) : null;
  if (!website || website.account !== account || website.state !== 'active') {
    throw new AppError('NOT_FOUND', 'There is no such domain in your account.');
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
    const title = state === 'suspended' ? 'Account suspended' : 'Account removed';
    res.status(403).set('Cache-Control', 'no-store').render('panel/account-closed', { title, state });
  };
}

export function createPanelRouter(deps: PanelPagesDeps): express.Router {
  const router = express.Router();
  router.use(closedAccountPage(deps.accounts));
  router.get('/', (req: Request, res: Response) => {
    const account = sessionAccount(req);
    res.set('Cache-Control', 'no-store').render('panel/domains', {
      title: 'My domains',
      account,
      rows: domainRows(deps, account),
      flash: flashOf(req),
    });
  });

  router.get('/domains/:domain', async (req: Request, res: Response) => {
    const website = ownWebsite(req, deps.accounts);
    const range = rangeSchema.parse(req.query.range);
    const settings = await settingsOrNote(deps, website.domain);
    renderDomainPage(res, 200, deps, website, range, { ...settings, flash: flashOf(req) });
  });

  router.post(CERTIFICATE_FORM, async (req: Request, res: Response) => {
    const website = ownWebsite(req, deps.accounts);
    const current = await readWebsiteSettings(deps.provider, website.domain);
    const files = (Array.isArray(req.files) ? req.files : []) as UploadedFile[];
    const result = await saveWebsiteSettings(deps, website, { body: req.body, files, current });
    if (result.saved) {
      res.redirect(303, `${domainPath(website)}?done=${result.changed.length > 0 ? 'saved' : 'unchanged'}#settings`);
      return;
    }
    renderDomainPage(res, 400, deps, website, '24h', {
      view: current,
      form: submittedForm(req.body, current),
      problems: result.problems,
      flash: { kind: 'error', message: 'Nothing was saved: please check the fields marked below.' },
    });
  });

  addActionRoutes(router, deps);
  addRulesEditorRoutes(router, deps);
  return router;
}

/** POST .../protect, .../pause, .../resume: one click each, then back to the list or the domain. */
function addActionRoutes(router: express.Router, deps: PanelPagesDeps): void {
  for (const action of ['protect', 'pause', 'resume'] as const) {
    router.post(`/domains/:domain/${action}`, async (req: Request, res: Response) => {
      const website = ownWebsite(req, deps.accounts);
      await deps.protection[action](website.domain, { kind: 'customer', account: website.account });
      const done = { protect: 'protected', pause: 'paused', resume: 'resumed' }[action];
      const back = returnSchema.parse((req.body as Record<string, unknown> | undefined)?.return_to);
      res.redirect(303, back === 'list' ? `/panel?done=${done}` : `${domainPath(website)}?done=${done}`);
    });
  }
}

/** The rules editor page, and the probe its script asks whether the editor answers and may be framed here. */
function addRulesEditorRoutes(router: express.Router, deps: PanelPagesDeps): void {
  router.get('/domains/:domain/rules', (req: Request, res: Response) => {
    const website = ownWebsite(req, deps.accounts);
    const frameUrl = editorUrlFor(deps, website, res.locals.locale as string);
    res.set('Cache-Control', 'no-store').render('panel/rules', { title: `Rules of ${website.domain}`, website, frameUrl });
  });

  router.get('/domains/:domain/rules/check', async (req: Request, res: Response) => {
    const website = ownWebsite(req, deps.accounts);
    const frameUrl = editorUrlFor(deps, website, res.locals.locale as string);
    const pageOrigin = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    res.set('Cache-Control', 'no-store').json({ status: frameUrl ? await probeRulesEditor(frameUrl, pageOrigin) : 'unreachable' });
  });
}

/** The chart's data for views/static/charts.js, safe inside a script element. */
const chartJson = (series: { x: number[]; permitted: number[]; blocked: number[] }) =>
  JSON.stringify({
    x: series.x,
    series: [
      { label: 'Permitted', values: series.permitted },
      { label: 'Blocked', values: series.blocked },
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
 * Each active domain with its state, actions, usage this period and the day and hour a limit
 * will be reached at the current rate (its own limit, or the account's, whichever comes
 * first): one usage query and one limits read for all.
 */
function domainRows(deps: PanelPagesDeps, account: string) {
  const now = deps.now();
  const { period, websites, accountHits, accountLimit } = accountUsageNow(deps, account, now);
  const accountSide = { usage: accountHits, limit: accountLimit, stored: deps.schedule.accountForecast(account) };
  return websites.map(({ website, hits, limit, exempt }) => {
    const forecast = currentForecast({
      now,
      periodEnd: period.end,
      counted: period,
      website: { usage: hits, limit, stored: deps.schedule.get(website.domain) },
      account: accountSide,
    });
    return {
      website,
      state: describeWebsite(website, 'customer'),
      actions: customerActions(website),
      hits,
      limit,
      // An exempt website is never paused: neither limit is reached for it.
      limitReachedOn: forecastWords(exempt ? null : earliest(forecast.website, forecast.account), now),
    };
  });
}

const earliest = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));

interface SettingsLocals {
  view: SettingsView | null;
  form: SettingsForm | null;
  problems: FieldProblems;
  settingsNote?: string;
}

/** The current settings, or a note saying why they cannot be shown (the provider is down): the rest of the page still works. */
async function settingsOrNote(deps: PanelPagesDeps, domain: string): Promise<SettingsLocals> {
  try {
    const view = await readWebsiteSettings(deps.provider, domain);
    return { view, form: formOf(view), problems: {} };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { view: null, form: null, problems: {}, settingsNote: error.message };
  }
}

function renderDomainPage(
  res: Response,
  status: number,
  deps: PanelPagesDeps,
  website: Website,
  range: TrafficRange,
  locals: SettingsLocals & { flash: { kind: string; message: string } | null },
): void {
  const now = deps.now();
  const limits = createLimitResolver(deps.stats, deps.accounts);
  const period = limits.periodOf(website.account, now);
  const own = limits.forWebsite(website.domain, website.account);
  const { fromHour, toHour } = trafficWindow(now);
  const traffic = trafficView(deps.stats.hourlyHits({ domain: website.domain }, fromHour, toHour), now, range);
  res
    .status(status)
    .set('Cache-Control', 'no-store')
    .render('panel/domain', {
      title: website.domain,
      charts: true,
      website,
      state: describeWebsite(website, 'customer'),
      actions: customerActions(website),
      usage: { hits: deps.stats.websiteUsage(website.domain, period.start), limit: own.exempt ? null : own.websiteHits, period },
      range,
      ranges: Object.keys(TRAFFIC_RANGES),
      traffic,
      chartJson: chartJson(traffic.series),
      mitigation: deps.stats.latestMitigation(website.domain),
      spikes: spikeNotices(deps.schedule.notices(website.domain, NOTICES_READ), now),
      vocabulary: {
        categories: RULE_CATEGORIES,
        policies: RULE_POLICIES,
        rulesets: RULESETS,
        flags: LOADBALANCER_FLAGS,
        issuers: CERTS_ISSUERS,
      },
      hasEditor: deps.rulesEditorTemplate !== undefined,
      ...locals,
    });
}
