/**
 * The demo panel (/admin/demo), only when the embedded sandbox is the provider: it plays the
 * hosting panel (accounts and domains arrive through the same ingest as a panel's hooks) and
 * the outside world (visitors and DNS, through the sandbox's control API), runs a sync now,
 * and opens the customer's view of an account in its own session (the admin stays signed in).
 */
import type { Format } from '../../core/format.js';
import type { Translate } from '../../core/i18n.js';
import { randomUUID } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import type { IngestResult } from '../../core/ingest.js';
import { LockHeldError } from '../../core/job-lock.js';
import { createLaunchToken } from '../../core/launch-tokens.js';
import type { AccountsRepo } from '../../db/accounts.repo.js';
import type { StatisticsRepo } from '../../db/statistics.repo.js';
import { AppError } from '../../errors.js';
import { accountNameMessage, accountNameSchema, panelEventSchema, type PanelEvent, type PanelEventInput } from '../../panel/events.js';
import { domainSchema } from '../../provider/spec.js';
import type { FormState } from './admin-settings.routes.js';
import { demoAccounts, describeAction } from './demo-view.js';
import { errorSummary } from './error-summary.js';
import { createSandboxControl, type SandboxTarget } from './sandbox-control.js';

export interface DemoPagesDeps {
  sandbox: SandboxTarget;
  /** Signs the customer view's launch token, as `wpp launch-url` would. */
  signInKey: string;
  now: () => number;
  /** The hooks' own ingest (the job queue's ingestEvents). */
  ingest: (events: PanelEvent[]) => IngestResult[] | Promise<IngestResult[]>;
  accounts: AccountsRepo;
  stats: StatisticsRepo;
  /** A sync that finds another running answers skipped (like `wpp sync-stats`). */
  syncStatistics: () => Promise<{ skipped: boolean }>;
  enforceLimits: () => Promise<unknown>;
  /**
   * Re-reads a website now, as the admin asked it (the job queue's refreshWebsites): the
   * sandbox's callback for a change the demo just made may fall within the re-read window of
   * an earlier one, and the newcomer should not wait for it.
   */
  refreshWebsite: (website: { domain: string; account: string }) => void;
}

type DemoForm = 'account' | 'domain' | 'traffic' | 'dns' | 'customer';

/** The message after each step (demoPanel.done.<step>). */
const DONE = ['account', 'domain', 'traffic', 'dns', 'sync', 'sync-busy'] as const;
type Done = (typeof DONE)[number];
const isDone = (value: unknown): value is Done => typeof value === 'string' && (DONE as readonly string[]).includes(value);

/** At most this many hits per click: enough to cross any demo limit, small enough for the sandbox's counters. */
export const MAX_DEMO_HITS = 1_000_000;
/** A count of hits, its problems in the page's language (`field`: the field's word in the message). */
const hitsSchema = (t: Translate, format: Pick<Format, 'number'>, field: string) =>
  z
    .string()
    .trim()
    .regex(/^[0-9]+$/, t('demoPanel.problems.wholeNumber', { field }))
    .transform(Number)
    .pipe(z.number().max(MAX_DEMO_HITS, t('demoPanel.problems.atMost', { field, max: format.number(MAX_DEMO_HITS) })));

/** Each form's schema; the messages of its own rules in the page's language. */
const formsIn = (t: Translate, format: Pick<Format, 'number'>) =>
  ({
    account: z.object({ account: accountNameSchema }),
    domain: z.object({ account: accountNameSchema, domain: domainSchema }),
    traffic: z
      .object({
        domain: domainSchema,
        hits: hitsSchema(t, format, t('demoPanel.problems.hits')).pipe(z.number().min(1, t('demoPanel.problems.atLeastOne'))),
        blocked: hitsSchema(t, format, t('demoPanel.problems.blocked')),
      })
      .refine((form) => form.blocked <= form.hits, { path: ['blocked'], message: t('demoPanel.problems.blockedOverHits') }),
    dns: z.object({ domain: domainSchema }),
    customer: z.object({ account: accountNameSchema }),
  }) satisfies Record<DemoForm, z.ZodType>;
type DemoForms = ReturnType<typeof formsIn>;

/** Each form's fields with their ids and the key of their label (demoPanel.*), in the page's order (views/admin/demo.ejs). */
const DEMO_FIELDS: Record<DemoForm, [field: string, id: string, label: string][]> = {
  account: [['account', 'demo-account', 'accountName']],
  domain: [
    ['account', 'demo-domain-account', 'account'],
    ['domain', 'demo-domain', 'domain'],
  ],
  dns: [['domain', 'demo-dns-domain', 'domain']],
  traffic: [
    ['domain', 'demo-traffic-domain', 'domain'],
    ['hits', 'demo-hits', 'hits'],
    ['blocked', 'demo-blocked', 'blocked'],
  ],
  customer: [['account', 'demo-customer', 'account']],
};

/** The refused form's problems, each a link to its field named by its label. */
function demoErrorSummary(form: DemoForm, state: FormState, t: Translate) {
  const problems = [
    ...(state.problems[''] ?? []).map((message) => ({ id: undefined, label: undefined, message })),
    ...DEMO_FIELDS[form].flatMap(([field, id, label]) =>
      (state.problems[field] ?? []).map((message) => ({ id, label: t(`demoPanel.${label}`), message })),
    ),
  ];
  return errorSummary(problems, t('adminSettings.nothingSaved'));
}

/** A problem of a shared schema (the account name, the domain) in the page's language; the form's own rules are worded already. */
function problemWords(issue: z.core.$ZodIssue, typedValue: unknown, t: Translate): string {
  const field = issue.path[0];
  if (field === 'account') return accountNameMessage(issue, t);
  if (field === 'domain' && issue.code === 'custom') return t('demoPanel.problems.notDomain', { value: JSON.stringify(typedValue ?? '') });
  return issue.message;
}

/** The text fields sent, to show a refused form again. */
const typed = (body: unknown): Record<string, string> =>
  Object.fromEntries(
    Object.entries((body ?? {}) as Record<string, unknown>).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );

/**
 * What the last step was about (the account just created, the domain just added), carried in
 * the redirect's query: the next forms are filled in with it, not with the newest account,
 * which the account's job may not even have created yet. A value that does not parse is ignored.
 */
const justDoneSchema = z.object({
  account: accountNameSchema.optional().catch(undefined),
  domain: domainSchema.optional().catch(undefined),
});
export type JustDone = z.output<typeof justDoneSchema>;

/** The query of the redirect after a step about `subject`. */
const justDoneQuery = (subject: JustDone) =>
  Object.entries(subject)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `&${key}=${encodeURIComponent(value as string)}`)
    .join('');

/** The demo page, and its forms: read with their schema, or refused with each message next to its field. */
function demoPage(deps: DemoPagesDeps) {
  const render = (
    res: Response,
    status: number,
    done: Done | undefined,
    refused?: { form: DemoForm; state: FormState },
    justDone: JustDone = {},
  ) => {
    const empty = (): FormState => ({ values: {}, problems: {} });
    const states = { account: empty(), domain: empty(), traffic: empty(), dns: empty(), customer: empty() };
    if (refused) states[refused.form] = refused.state;
    const t = res.locals.t as Translate;
    res.status(status).render('admin/demo', {
      title: t('demoPanel.title'),
      ...(refused ? { errorSummary: demoErrorSummary(refused.form, refused.state, t) } : {}),
      ...(done ? { flash: { kind: done === 'sync-busy' ? 'error' : 'ok', message: t(`demoPanel.done.${done}`) } } : {}),
      justDone,
      accounts: demoAccounts(deps, deps.now(), t),
      actions: deps.stats.recentActions(10).map((action) => describeAction(action, res.locals.format as Format, t)),
      maxHits: MAX_DEMO_HITS,
      forms: states,
    });
  };
  /** Refuses a form: each message next to its field (the form's own when it has none). */
  const refuse = (req: Request, res: Response, form: DemoForm, problems: { field: string; message: string }[]) => {
    const state: FormState = { values: typed(req.body), problems: {} };
    for (const { field, message } of problems) (state.problems[field] ??= []).push(message);
    render(res, 400, undefined, { form, state });
  };
  /** The form's values, or null once it has been refused. */
  const read = <F extends DemoForm>(form: F, req: Request, res: Response): z.output<DemoForms[F]> | null => {
    const t = res.locals.t as Translate;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const parsed = formsIn(t, res.locals.format as Format)[form].safeParse(body);
    if (parsed.success) return parsed.data as z.output<DemoForms[F]>;
    const problems = parsed.error.issues.map((issue) => ({
      field: String(issue.path[0] ?? ''),
      message: problemWords(issue, body[String(issue.path[0])], t),
    }));
    refuse(req, res, form, problems);
    return null;
  };
  return { render, refuse, read };
}

export function createDemoRouter(deps: DemoPagesDeps): express.Router {
  const router = express.Router();
  const control = createSandboxControl(deps.sandbox);
  const { render, refuse, read } = demoPage(deps);
  const done = (res: Response, what: Done, subject: JustDone = {}) =>
    res.redirect(303, `/admin/demo?done=${what}${justDoneQuery(subject)}`);

  router.get('/demo', (req, res) => {
    const what = isDone(req.query.done) ? req.query.done : undefined;
    render(res, 200, what, undefined, justDoneSchema.parse(req.query));
  });

  router.post('/demo/accounts', async (req, res) => {
    const form = read('account', req, res);
    if (!form) return;
    await ingest(deps, { type: 'account.created', account: form.account });
    done(res, 'account', { account: form.account });
  });

  router.post('/demo/domains', async (req, res) => {
    const form = read('domain', req, res);
    if (!form) return;
    const existing = deps.accounts.getWebsite(form.domain);
    if (existing && existing.account !== form.account)
      return refuse(req, res, 'domain', [
        {
          field: 'domain',
          message: (res.locals.t as Translate)('demoPanel.problems.otherAccount', { domain: form.domain, account: existing.account }),
        },
      ]);
    await ingest(deps, { type: 'domain.added', account: form.account, domain: form.domain });
    done(res, 'domain', { account: form.account, domain: form.domain });
  });

  router.post('/demo/traffic', async (req, res) => {
    const form = read('traffic', req, res);
    if (!form) return;
    const outcome = await control.sendTraffic(form.domain, form.hits, form.blocked);
    if (!outcome.ok) return refuse(req, res, 'traffic', [{ field: 'domain', message: sandboxRefusal(form.domain, outcome, res) }]);
    done(res, 'traffic', { account: deps.accounts.getWebsite(form.domain)?.account, domain: form.domain });
  });

  router.post('/demo/dns-verified', async (req, res) => {
    const form = read('dns', req, res);
    if (!form) return;
    const outcome = await control.verifyDns(form.domain);
    if (!outcome.ok) return refuse(req, res, 'dns', [{ field: 'domain', message: sandboxRefusal(form.domain, outcome, res) }]);
    const website = deps.accounts.getWebsite(form.domain);
    if (website) deps.refreshWebsite(website);
    done(res, 'dns', { account: website?.account, domain: form.domain });
  });

  router.post('/demo/sync', async (_req, res) => {
    try {
      if ((await deps.syncStatistics()).skipped) return done(res, 'sync-busy');
      await deps.enforceLimits();
    } catch (error) {
      if (!(error instanceof LockHeldError)) throw error;
      return done(res, 'sync-busy');
    }
    done(res, 'sync');
  });

  router.post('/demo/customer-view', (req, res) => {
    const form = read('customer', req, res);
    if (!form) return;
    const { token } = createLaunchToken(deps.signInKey, { role: 'customer', account: form.account, panel: 'demo' }, { now: deps.now() });
    res.redirect(303, `/launch?token=${encodeURIComponent(token)}`);
  });
  return router;
}

/** One panel event through the hooks' ingest, with a fresh id (each click is a new event). */
async function ingest(deps: DemoPagesDeps, draft: Omit<PanelEventInput, 'id' | 'occurredAt'>) {
  const event = panelEventSchema.parse({ ...draft, id: `demo:${randomUUID()}`, occurredAt: new Date(deps.now()).toISOString() });
  await deps.ingest([event]);
}

/** The sandbox's refusal in the words of the form. */
function sandboxRefusal(domain: string, outcome: { status: number; message: string }, res: Response): string {
  const t = res.locals.t as Translate;
  if (outcome.status === 404) return t('demoPanel.problems.noWebsite', { domain });
  throw new AppError('UNAVAILABLE', t('demoPanel.problems.refused', { reason: outcome.message }));
}
