/**
 * Who a panel page may sign in, once the panel itself has said whose session it is: the
 * session's own user, in the role its level allows, never the user or role the page asked
 * for when they differ. Pure: the panel's answer comes in as a parameter.
 */
import type { LaunchRequest } from './launch-tokens.js';

export interface PanelSignInClaim {
  /** `customer`: the user's own pages; `admin`: the admin pages; `reseller`: the reseller's pages (their own customers). */
  role: 'customer' | 'admin' | 'reseller';
  /** The user the page says is signed in (DirectAdmin's USERNAME). */
  username: string;
  /** The domain the panel has selected, opened after sign-in. */
  domain?: string | undefined;
}

/** What the panel answered for the session: its user and level. */
export interface PanelSessionUser {
  username: string;
  level: 'user' | 'reseller' | 'admin';
}

export type PanelSignIn = { ok: true; request: LaunchRequest } | { ok: false; message: string };

export function panelSignIn(panel: string, claim: PanelSignInClaim, verified: PanelSessionUser): PanelSignIn {
  if (claim.username.toLowerCase() !== verified.username.toLowerCase()) {
    return { ok: false, message: 'The signed-in user is not the user DirectAdmin says this session belongs to.' };
  }
  if (claim.role === 'admin') {
    if (verified.level !== 'admin') return { ok: false, message: 'Only an administrator may open the admin pages.' };
    return { ok: true, request: { role: 'admin', admin: verified.username, panel } };
  }
  if (claim.role === 'reseller') {
    // An admin's own customers are the host's, not a reseller's: the admin pages serve them.
    if (verified.level !== 'reseller') return { ok: false, message: 'Only a reseller may open the reseller pages.' };
    return { ok: true, request: { role: 'reseller', reseller: verified.username, panel } };
  }
  // Resellers and admins are users with domains of their own too: their own account's pages.
  return { ok: true, request: { role: 'customer', account: verified.username, domain: claim.domain, panel } };
}
