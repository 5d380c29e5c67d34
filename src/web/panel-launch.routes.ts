/**
 * POST /panel-launch/directadmin: a DirectAdmin page (running as the signed-in DirectAdmin
 * user, never root) hands over the session DirectAdmin gave it; DirectAdmin is asked whose it
 * is (panel/directadmin-session.ts), and only then is a launch URL made, for exactly that
 * user and the role its level allows (core/panel-sign-in.ts). This process holds the sign-in
 * key; the page never sees it. Neither the session nor DirectAdmin's answer is ever logged.
 */
import express from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { AppError } from '../errors.js';
import { createLaunchToken, LAUNCH_TOKEN_MAX_AGE_MS } from '../core/launch-tokens.js';
import { panelSignIn } from '../core/panel-sign-in.js';
import type { DirectAdminSessionVerifier } from '../panel/directadmin-session.js';
import { normalized } from '../panel/events.js';
import { normalizeDomain } from '../provider/spec.js';

export interface PanelLaunchDeps {
  verifyDirectAdminSession: DirectAdminSessionVerifier;
  signInKey: string;
  /** The pages' address as the browser reaches it. */
  pagesUrl: string;
  now: () => number;
  logger: Logger;
}

/** DirectAdmin's session id and key are letters and digits (39 of them on 1.709). */
const sessionValue = z.string().regex(/^[A-Za-z0-9]{8,128}$/, 'is not a DirectAdmin session value');

const requestSchema = z.strictObject({
  // The role the page asks for; the user's own level, as DirectAdmin states it, decides whether it is given (panel-sign-in.ts).
  role: z.enum(['customer', 'admin', 'reseller']),
  sessionId: sessionValue,
  sessionKey: sessionValue,
  username: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'is not a DirectAdmin user name'),
  domain: normalized(normalizeDomain, 'domain name').optional(),
});

/** The user's menu asks for no role: only whether its own package shows the entry. */
const menuRequestSchema = z.strictObject({
  sessionId: sessionValue,
  sessionKey: sessionValue,
  username: requestSchema.shape.username,
});

/**
 * POST /panel-launch/directadmin/menu: the user's Evolution menu (a plugin script DirectAdmin runs
 * as the user) asks whether to show the entry. The answer is DirectAdmin's own: the session's
 * user.conf and its package item wpp_web_protection (OFF hides it; ON or never saved shows it),
 * given only to the user DirectAdmin names, so nobody learns another user's package.
 */
function answerMenu(deps: PanelLaunchDeps): express.RequestHandler {
  return (req, res, next) => {
    res.set('Cache-Control', 'no-store');
    const parsed = menuRequestSchema.safeParse(req.body);
    if (!parsed.success) throw new AppError('BAD_REQUEST', 'Send the DirectAdmin session (sessionId, sessionKey) and the user');
    const { sessionId, sessionKey, username } = parsed.data;
    deps
      .verifyDirectAdminSession({ sessionId, sessionKey })
      .then((answer) => {
        if (!answer.ok) {
          throw answer.reason === 'refused'
            ? new AppError('UNAUTHORIZED', 'DirectAdmin does not know this session.')
            : new AppError('UNAVAILABLE', 'DirectAdmin could not confirm who is signed in.', [], { retryAfterSeconds: 5 });
        }
        if (answer.user.username !== username) throw new AppError('FORBIDDEN', 'This session belongs to another user.');
        res.json({ entry: answer.user.protection !== false });
      })
      .catch(next);
  };
}

export function createPanelLaunchRouter(deps: PanelLaunchDeps): express.Router {
  const router = express.Router();
  router.post('/panel-launch/directadmin/menu', express.json({ limit: '4kb' }), answerMenu(deps));
  router.post('/panel-launch/directadmin', express.json({ limit: '4kb' }), (req, res, next) => {
    res.set('Cache-Control', 'no-store');
    const parsed = requestSchema.safeParse(req.body);
    if (!parsed.success) {
      const details = parsed.error.issues.map((issue) => ({ path: issue.path.join('.') || '(body)', message: issue.message }));
      throw new AppError('BAD_REQUEST', 'Send the DirectAdmin session (sessionId, sessionKey), the user and the role', details);
    }
    const { sessionId, sessionKey, ...claim } = parsed.data;
    deps
      .verifyDirectAdminSession({ sessionId, sessionKey })
      .then((answer) => {
        if (!answer.ok) {
          deps.logger.warn(
            { reason: answer.reason, claimed: claim.username, role: claim.role, why: answer.message },
            'DirectAdmin sign-in refused',
          );
          throw answer.reason === 'refused'
            ? new AppError('UNAUTHORIZED', 'DirectAdmin does not know this session: sign in to DirectAdmin again.')
            : new AppError('UNAVAILABLE', 'DirectAdmin could not confirm who is signed in; try again in a minute.', [], {
                retryAfterSeconds: 5,
              });
        }
        const decided = panelSignIn('directadmin', claim, { username: answer.user.username, level: answer.user.usertype });
        if (!decided.ok) {
          deps.logger.warn(
            { claimed: claim.username, user: answer.user.username, level: answer.user.usertype, role: claim.role },
            'DirectAdmin sign-in refused',
          );
          throw new AppError('FORBIDDEN', decided.message);
        }
        // The pages in the user's DirectAdmin language (user.conf), as DirectAdmin said it: never the page's word.
        const request = { ...decided.request, locale: answer.user.language };
        const { token, claims } = createLaunchToken(deps.signInKey, request, {
          now: deps.now(),
          maxAgeMs: LAUNCH_TOKEN_MAX_AGE_MS,
        });
        deps.logger.info(
          { user: answer.user.username, role: claims.role, locale: claims.locale },
          'DirectAdmin sign-in: launch URL issued',
        );
        res.json({ url: `${deps.pagesUrl}/launch?token=${token}`, expiresAt: claims.expiresAt });
      })
      .catch(next);
  });
  return router;
}
