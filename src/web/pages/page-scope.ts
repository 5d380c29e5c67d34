/**
 * Whose fleet a page shows: the admin's (every account) or a reseller's (the accounts the
 * panel says are theirs, accounts.reseller). The admin routers take a scope, so the reseller
 * pages are the admin pages with their links under /reseller and every read and action limited
 * to the session's reseller. The reseller always comes from the session, never from the request.
 */
import type { Request } from 'express';
import type { HostActor } from '../../core/protection.js';
import { sessionAdmin, sessionReseller } from './session.middleware.js';

export interface PageScope {
  /** Where the pages' own links and forms point: '/admin' or '/reseller'. */
  base: '/admin' | '/reseller';
  /** The reseller whose customers this request may see and change; undefined: every account (an admin). */
  resellerOf(req: Request): string | undefined;
  /** Who acts, as recorded: the admin, or the reseller (`reseller:<name>`). */
  actor(req: Request): HostActor;
}

export const ADMIN_SCOPE: PageScope = {
  base: '/admin',
  resellerOf: () => undefined,
  actor: (req) => ({ kind: 'admin', admin: sessionAdmin(req) }),
};

export const RESELLER_SCOPE: PageScope = {
  base: '/reseller',
  resellerOf: (req) => sessionReseller(req),
  actor: (req) => ({ kind: 'reseller', reseller: sessionReseller(req) }),
};

/**
 * Whether the request may see an account: always for an admin; for a reseller, only an account
 * the plugin records as theirs. `ownerOf` reads the account's reseller (undefined: unknown account).
 */
export function mayAccess(
  scope: PageScope,
  req: Request,
  account: string,
  ownerOf: (account: string) => string | null | undefined,
): boolean {
  const reseller = scope.resellerOf(req);
  return reseller === undefined || ownerOf(account) === reseller;
}
