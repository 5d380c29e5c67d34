/**
 * GET /launch?token=...: a panel's signed launch token becomes a session (core/sessions.ts),
 * and the browser is sent on to an address without the token. A refused token gets a page
 * saying why in plain words; the log names the reason and never the token.
 */
import express, { type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../../errors.js';
import type { Translate } from '../../core/i18n.js';
import { claimsSubject, LaunchTokenError, type LaunchClaims, type LaunchRefusal } from '../../core/launch-tokens.js';
import type { SessionRole } from '../../db/sessions.repo.js';
import type { SessionService } from '../../core/sessions.js';
import { sessionCookieName, sessionCookieOptions } from './session.middleware.js';

/**
 * Why a sign-in link was refused, in the user's language (the catalogs' `launch.refused.<reason>`),
 * and in the demo (the embedded sandbox, no panel to open the pages again from) how to print a fresh one.
 */
const refusalMessage = (t: Translate, reason: LaunchRefusal | 'missing', demo: boolean) =>
  t(`launch.refused.${reason}`) + (demo ? ` ${t('launch.demoHint', { command: 'npx wpp launch-url --admin NAME' })}` : '');

/** Where a launch may send the browser: a page of the plugin itself, never another site. */
function localTarget(value: unknown): string | undefined {
  if (typeof value !== 'string' || !/^\/(panel|admin|reseller)(\/[A-Za-z0-9._~%/-]*)?(\?[A-Za-z0-9._~%&=+-]*)?$/.test(value))
    return undefined;
  return value.includes('//') ? undefined : value;
}

const landingOf = (claims: LaunchClaims) => {
  if (claims.role === 'customer') return claims.domain ? `/panel/domains/${encodeURIComponent(claims.domain)}` : '/panel';
  return claims.role === 'admin' ? '/admin' : '/reseller';
};

/** The role a `next` address is for: its area's (/admin, /reseller, /panel). */
const roleOfTarget = (next: string): SessionRole =>
  next.startsWith('/admin') ? 'admin' : next.startsWith('/reseller') ? 'reseller' : 'customer';

export function createLaunchRouter({
  sessions,
  secureCookies,
  logger,
  onRefused,
  demo = false,
}: {
  sessions: SessionService;
  secureCookies: boolean;
  logger: Logger;
  /** The provider is the embedded sandbox: a refused link also says how to print a fresh one. */
  demo?: boolean;
  /** Told of each refused launch (the metrics). */
  onRefused?: (reason: LaunchRefusal | 'missing') => void;
}) {
  const router = express.Router();
  router.get('/launch', (req: Request, res: Response) => {
    res.set('Cache-Control', 'no-store');
    // A refused link's page is in the browser's language (page-language.ts): there is no session yet.
    const t = res.locals.t as Translate;
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    if (!token) {
      onRefused?.('missing');
      throw new AppError('BAD_REQUEST', refusalMessage(t, 'missing', false));
    }
    const next = localTarget(req.query.next);
    try {
      const expected = next === undefined ? undefined : roleOfTarget(next);
      const { cookieValue, session, claims } = sessions.launch(token, expected);
      res.cookie(
        sessionCookieName(claims.role, req, secureCookies),
        cookieValue,
        sessionCookieOptions(req, secureCookies, session.expiresAt),
      );
      logger.info(
        { role: claims.role, subject: claimsSubject(claims), panel: claims.panel, locale: claims.locale },
        'signed in from the panel',
      );
      res.redirect(303, next ?? landingOf(claims));
    } catch (error) {
      if (!(error instanceof LaunchTokenError)) throw error;
      logger.warn({ reason: error.reason, ip: req.ip }, 'launch token refused');
      onRefused?.(error.reason);
      const message = refusalMessage(t, error.reason, demo);
      throw new AppError(error.reason === 'wrong_role' ? 'FORBIDDEN' : 'UNAUTHORIZED', message, [], { cause: error });
    }
  });
  return router;
}
