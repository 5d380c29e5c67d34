/**
 * The reseller's pages (views/reseller/): what the admin pages offer, for the accounts the panel
 * says belong to the signed-in reseller (accounts.reseller) and nothing of anyone else's. Every
 * route reads the reseller from the session, never from the request.
 */
import express, { type Request, type Response } from 'express';
import type { Translate } from '../../core/i18n.js';
import type { AccountsRepo } from '../../db/accounts.repo.js';
import { sessionReseller } from './session.middleware.js';

export interface ResellerPagesDeps {
  accounts: Pick<AccountsRepo, 'accountsOfReseller' | 'getAccount' | 'websitesOf'>;
  now: () => number;
}

/** One customer of the reseller, as the overview lists it. */
interface CustomerRow {
  account: string;
  state: string;
  plan: string | null;
  websites: number;
}

export function createResellerRouter(deps: ResellerPagesDeps): express.Router {
  const router = express.Router();
  router.get('/', (req: Request, res: Response) => {
    const t = res.locals.t as Translate;
    const reseller = sessionReseller(req);
    const customers: CustomerRow[] = deps.accounts.accountsOfReseller(reseller).flatMap((name) => {
      const account = deps.accounts.getAccount(name);
      if (!account) return [];
      const websites = deps.accounts.websitesOf(name).filter((website) => website.state === 'active').length;
      return [{ account: name, state: account.state, plan: account.plan, websites }];
    });
    res.render('reseller/overview', { title: t('reseller.overview.title'), reseller, customers });
  });
  return router;
}
