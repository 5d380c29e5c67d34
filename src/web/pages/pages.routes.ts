/**
 * The plugin's pages: the launch, the customer's pages under /panel, the admins' under
 * /admin and the resellers' (the admin pages for their own customers) under /reseller. Every page needs a session of its role; every form a CSRF token. Nothing of a
 * request's body is read before its session is known: each area checks the session first,
 * then reads url-encoded forms, and multipart only on the one form that uploads files (a
 * domain's certificate and key), so the CSRF check that follows sees every form's token.
 */
import cookieParser from 'cookie-parser';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { LaunchRefusal } from '../../core/launch-tokens.js';
import type { SessionEnd, SessionService } from '../../core/sessions.js';
import type { SessionRole } from '../../db/sessions.repo.js';
import { createAdminRouter, type AdminPagesDeps } from './admin.routes.js';
import { createCsrf } from './csrf.js';
import { createLaunchRouter } from './launch.routes.js';
import { browserLanguage, createPageLanguages, usePageLanguage, type PageLanguages } from './page-language.js';
import { CERTIFICATE_FORM, createPanelRouter, type PanelPagesDeps } from './panel.routes.js';
import { createResellerRouter, type ResellerPagesDeps } from './reseller.routes.js';
import { certificateUpload } from './uploads.js';
import { requireSession, sessionCookieName, sessionCookieOptions } from './session.middleware.js';

/** What the pages report (the metrics): refused launches, and requests without a live session. */
export interface PagesObserver {
  /** `missing`: the launch URL had no token at all. */
  launchRefused(reason: LaunchRefusal | 'missing'): void;
  sessionRefused(role: SessionRole, reason: SessionEnd): void;
}

export interface PagesDeps {
  sessions: SessionService;
  /** Cookies only over https: WPP_PUBLIC_URL is https (behind a TLS proxy), or the request came over TLS. */
  secureCookies: boolean;
  logger: Logger;
  panel: PanelPagesDeps;
  admin: AdminPagesDeps;
  reseller: ResellerPagesDeps;
  /** Told of refused launches and sessions. Default: nobody. */
  observer?: PagesObserver;
  /** The pages' languages (page-language.ts). Default: made from the shipped catalogs (locales/), in `timeZone`. */
  languages?: PageLanguages;
  /** The panel's time zone for every date and time the pages write (WPP_TIME_ZONE, else the server's); undefined: UTC, said. */
  timeZone?: string | undefined;
}

/** Url-encoded forms: the largest, the admin's limits and plans, are a few kilobytes. */
const FORM_LIMITS = { extended: false, limit: '256kb', parameterLimit: 500 } as const;

export function createPagesRouter(deps: PagesDeps): express.Router {
  const { sessions, secureCookies } = deps;
  const router = express.Router();
  const csrf = createCsrf(sessions);
  router.use(cookieParser());
  // Every page speaks its user's language: `t`, `locale` and `format` (core/format.ts), one set per
  // language made once, since Intl's formatters are costly to build. Until a session says otherwise,
  // the browser's language (a refused sign-in link, the home page).
  const languages = deps.languages ?? createPageLanguages({ timeZone: deps.timeZone });
  router.use(browserLanguage(languages));
  router.use(
    createLaunchRouter({
      sessions,
      secureCookies,
      logger: deps.logger,
      onRefused: deps.observer?.launchRefused,
      demo: deps.admin.demo !== undefined,
    }),
  );

  router.get('/', (_req, res: Response) => {
    res.render('home', { title: res.locals.t('home.title') });
  });

  const area = (role: SessionRole, pages: express.Router, uploads: readonly string[] = []) => {
    const areaRouter = express.Router();
    // The area's one guard, ahead of every route in it and of any body: a session of this role.
    areaRouter.use(requireSession(sessions, role, { secureCookies, logger: deps.logger, onRefused: deps.observer?.sessionRefused }));
    // The session's language from here on: the one the panel gave at the launch.
    areaRouter.use((req: Request, res: Response, next: NextFunction) => {
      if (req.pageSession) usePageLanguage(res, languages[req.pageSession.locale]);
      next();
    });
    // Then the forms: url-encoded anywhere, multipart only where files are uploaded; then the CSRF token.
    areaRouter.use(express.urlencoded(FORM_LIMITS));
    for (const path of uploads) areaRouter.post(path, ...certificateUpload());
    areaRouter.use(csrf.protect);
    areaRouter.post('/logout', (req: Request, res: Response) => {
      if (req.pageSession) sessions.end(req.pageSession);
      res.clearCookie(sessionCookieName(role, req, secureCookies), sessionCookieOptions(req, secureCookies));
      res.set('Cache-Control', 'no-store').render('signed-out', { title: res.locals.t('signedOut.title') });
    });
    // The page's path, for the menu to mark the current item (layout/head.ejs).
    areaRouter.use((req: Request, res: Response, next: NextFunction) => {
      res.locals.currentPath = req.baseUrl + req.path;
      next();
    });
    areaRouter.use(pages);
    return areaRouter;
  };
  router.use('/panel', area('customer', createPanelRouter(deps.panel), [CERTIFICATE_FORM]));
  router.use('/admin', area('admin', createAdminRouter(deps.admin)));
  router.use('/reseller', area('reseller', createResellerRouter(deps.reseller)));
  return router;
}
