/**
 * Who is asking, for the pages: the session a role's cookie names (core/sessions.ts). Each
 * role has its own cookie, so an admin can open a customer's view without signing out.
 */
import type { CookieOptions, NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { Translate } from '../../core/i18n.js';
import type { PageUser, Session, SessionEnd, SessionService } from '../../core/sessions.js';
import type { SessionRole } from '../../db/sessions.repo.js';
import { AppError } from '../../errors.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The signed-in page user, set by requireSession. */
    pageSession?: Session;
  }
}

/** Whether the pages' cookies are Secure: WPP_PUBLIC_URL is https (behind a TLS proxy), or this request came over TLS. */
const secureFor = (req: Request, secureCookies: boolean) => secureCookies || req.secure;

/**
 * The session cookie's name. Over https it carries the `__Host-` prefix: browsers accept such a
 * cookie only Secure, from this very host, for path `/` and without a Domain, so neither a
 * sibling host nor plain http can plant one (cookies ignore ports: serve the plugin on a host
 * name of its own). A cookie without the prefix is then not read at all.
 */
export const sessionCookieName = (role: SessionRole, req: Request, secureCookies: boolean) =>
  secureFor(req, secureCookies) ? `__Host-wpp_${role}` : `wpp_${role}`;

/** HttpOnly, SameSite=Lax, Path=/, no Domain, Secure when the plugin is reached over https; ends with the session. */
export function sessionCookieOptions(req: Request, secureCookies: boolean, expiresAt?: number): CookieOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    secure: secureFor(req, secureCookies),
    path: '/',
    ...(expiresAt === undefined ? {} : { expires: new Date(expiresAt) }),
  };
}

/** Why the user must sign in again, in their language: the catalogs' `session.ended.<reason>` (locales/). */
const endedMessage = (res: Response, ended: SessionEnd): string => (res.locals.t as Translate)(`session.ended.${ended}`);

/**
 * The one guard of an area (every /panel route, every /admin route): lets the request through
 * with `req.pageSession` of `role`, or answers with a page asking to sign in again. A session of
 * the other role is refused and logged (the reason and the subject, never the cookie).
 */
export function requireSession(
  sessions: SessionService,
  role: SessionRole,
  options: { secureCookies: boolean; logger: Logger; onRefused?: ((role: SessionRole, reason: SessionEnd) => void) | undefined },
) {
  const { secureCookies, logger, onRefused } = options;
  return (req: Request, res: Response, next: NextFunction) => {
    const cookies = req.cookies as Record<string, string | undefined>;
    const resumed = sessions.resume(cookies[sessionCookieName(role, req, secureCookies)], role);
    if ('ended' in resumed) {
      onRefused?.(role, resumed.ended);
      if (resumed.ended === 'wrong_role') {
        logger.warn(
          { reason: resumed.ended, role, subject: resumed.subject, method: req.method, path: req.path, ip: req.ip },
          'page session refused: it was created for the other role, and is ended',
        );
      }
      if (resumed.ended !== 'none') res.clearCookie(sessionCookieName(role, req, secureCookies), sessionCookieOptions(req, secureCookies));
      throw new AppError('UNAUTHORIZED', endedMessage(res, resumed.ended));
    }
    req.pageSession = resumed.session;
    res.locals.user = resumed.session.user;
    next();
  };
}

/** The signed-in user of a request that passed requireSession. */
export function pageUser(req: Request): PageUser {
  if (!req.pageSession) throw new Error('pageUser() outside requireSession');
  return req.pageSession.user;
}

/** The admin's name on an admin page (the /admin area requires an admin session). */
export function sessionAdmin(req: Request): string {
  const user = pageUser(req);
  if (user.role !== 'admin') throw new Error('an admin page reached without an admin session');
  return user.admin;
}

/** The reseller's name on a reseller page (the /reseller area requires a reseller session). */
export function sessionReseller(req: Request): string {
  const user = pageUser(req);
  if (user.role !== 'reseller') throw new Error('a reseller page reached without a reseller session');
  return user.reseller;
}
