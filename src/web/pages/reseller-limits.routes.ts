/**
 * A reseller's limits (/reseller/limits): the admin's limits form (views/admin/settings.ejs) for
 * the accounts and websites of the reseller's own customers only. Never global or plan limits:
 * those are the host's. A subject not theirs reads as unknown, as one the plugin never knew;
 * every change is recorded with `reseller:<name>`.
 */
import express, { type Request, type Response } from 'express';
import type { Translate } from '../../core/i18n.js';
import { applyLimitsChange, parseLimitsChange, type IsKnown } from '../../core/limits-change.js';
import type { AccountsRepo } from '../../db/accounts.repo.js';
import type { AdminViewsRepo } from '../../db/admin-views.repo.js';
import type { SettingsRepo } from '../../db/settings.repo.js';
import type { StatisticsRepo } from '../../db/statistics.repo.js';
import {
  addProblem,
  emptyForm,
  limitsForm,
  readForm,
  SETTINGS_FIELDS,
  settingsErrorSummary,
  typed,
  type FormState,
} from './admin-settings.routes.js';
import { sessionReseller } from './session.middleware.js';

export interface ResellerLimitsDeps {
  stats: StatisticsRepo;
  audit: SettingsRepo;
  views: Pick<AdminViewsRepo, 'resellerOf'>;
  accounts: Pick<AccountsRepo, 'getWebsite'>;
}

/** The scopes a reseller sets: their customers' accounts and websites. */
export const RESELLER_LIMIT_SCOPES = ['account', 'website'] as const;

/** Whether a limits form's subject is one of the reseller's: their account, or a website of one. */
function ownedBy(deps: ResellerLimitsDeps, reseller: string, scope: string, subject: string): boolean {
  const account = scope === 'account' ? subject : scope === 'website' ? deps.accounts.getWebsite(subject)?.account : undefined;
  return account !== undefined && deps.views.resellerOf(account) === reseller;
}

function limitsPage(deps: ResellerLimitsDeps, req: Request, res: Response, form: FormState | undefined) {
  const t = res.locals.t as Translate;
  const reseller = sessionReseller(req);
  const limitRows = deps.stats.resellerLimitRows(reseller);
  const saved = form === undefined && req.query.saved === 'limits';
  return {
    title: t('reseller.limits.title'),
    ...(saved ? { flash: { kind: 'ok', message: t('adminSettings.saved.limits') } } : {}),
    scopes: RESELLER_LIMIT_SCOPES,
    limitRows,
    forms: { limits: form ?? emptyForm() },
    fields: SETTINGS_FIELDS,
    ...(form ? { errorSummary: settingsErrorSummary({ limits: form }, t) } : {}),
  };
}

export function createResellerLimitsRouter(deps: ResellerLimitsDeps): express.Router {
  const router = express.Router();
  router.get('/limits', (req, res) => {
    res.set('Cache-Control', 'no-store').render('admin/settings', limitsPage(deps, req, res, undefined));
  });

  router.post('/limits', (req, res) => {
    const t = res.locals.t as Translate;
    const reseller = sessionReseller(req);
    const form = readForm(limitsForm, req, res) as Record<string, string | undefined>;
    // Their own subjects only, and only those that exist: no allow-unknown (a domain not yet anyone's could become another's).
    const isKnown: IsKnown = (scope, subject) => ownedBy(deps, reseller, scope, subject);
    const scoped = form.scope === undefined || (RESELLER_LIMIT_SCOPES as readonly string[]).includes(form.scope);
    const result = scoped ? parseLimitsChange({ ...form, allowUnknown: false }, isKnown, t) : null;
    // Exempting is the host's: an exempt customer is never paused, by the host's limits or by the reseller's own pool.
    const exemptAsked = (form.exempt ?? '') !== '';
    if (result === null || !result.ok || exemptAsked) {
      const state: FormState = { values: typed(req.body), problems: {} };
      if (result === null) addProblem(state, 'scope', t(scoped ? 'adminSettings.chooseScope' : 'reseller.limits.scopeRefused'));
      if (exemptAsked) addProblem(state, 'exempt', t('reseller.limits.exemptRefused'));
      for (const problem of result?.ok === false ? result.problems : []) addProblem(state, problem.field ?? '', problem.message);
      return res
        .status(400)
        .set('Cache-Control', 'no-store')
        .render('admin/settings', limitsPage(deps, req, res, state));
    }
    applyLimitsChange(deps, result.change, `reseller:${reseller}`);
    res.redirect(303, '/reseller/limits?saved=limits#limits');
  });
  return router;
}
