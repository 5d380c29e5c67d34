/**
 * The customer's pages (views/panel/): their own account's domains only. The account comes
 * from the session, never from the URL or a form, so another account's domain is a 404.
 */
import express, { type Request, type Response } from 'express';
import type { AccountsRepo } from '../../db/accounts.repo.js';
import { pageUser } from './session.middleware.js';

export interface PanelPagesDeps {
  accounts: Pick<AccountsRepo, 'websitesOf' | 'getWebsite' | 'getAccount'>;
}

/** The account of a customer's session. */
export function sessionAccount(req: Request): string {
  const user = pageUser(req);
  if (user.role !== 'customer') throw new Error('a customer page reached without a customer session');
  return user.account;
}

export function createPanelRouter(deps: PanelPagesDeps): express.Router {
  const router = express.Router();
  router.get('/', (req: Request, res: Response) => {
    const account = sessionAccount(req);
    const websites = deps.accounts.websitesOf(account).filter((website) => website.state === 'active');
    res.render('panel/domains', { title: 'My domains', account, websites });
  });
  return router;
}
