import express, { type Request, type Response } from 'express';
import { LOADBALANCER_FLAGS, normalizeDomain, RULE_CATEGORIES, RULE_POLICIES, RULESETS, type SettingsPatch } from '../provider/spec.js';
import { normalizeFormWebsite, websiteUpdateBodySchema } from './bodies.js';
import type { SandboxContext } from './context.js';
import { notFound, SandboxError, unauthorized } from './errors.js';
import type { StoredWebsite } from './store.js';
import { parseOr422 } from './validation.js';
import type { Principal } from './websites.js';

/**
 * The provider's dashboard frames (rules editor, statistics) at the older generation's
 * address `/{lang}/website/{domain}/edit?api-key=KEY`. Built to be framed by a partner
 * panel, so it allows every frame ancestor and keeps the key out of Referer headers.
 */
export function createDashboardRouter(context: SandboxContext): express.Router {
  const router = express.Router();
  const path = '/:lang/website/:domain/:view';
  const views = new Set(['edit', 'statistics']);

  router.use(path, (req, res, next) => {
    if (!/^[a-z]{2}$/.test(String(req.params.lang)) || !views.has(String(req.params.view))) return next('router');
    res.set({
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors *",
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    next();
  });

  const open = (req: Request): { principal: Principal; website: StoredWebsite; key: string } => {
    const key = typeof req.query['api-key'] === 'string' ? req.query['api-key'] : '';
    const user = key ? context.store.getUserByKey(key) : null;
    if (!user) throw unauthorized('This page needs a valid api-key in its address');
    const domain = normalizeDomain(String(req.params.domain));
    if (!domain) throw notFound(`Website ${String(req.params.domain)} does not exist`);
    const principal = { user };
    return { principal, website: context.websites.get(principal, domain), key };
  };

  const render = (res: Response, status: number, locals: Record<string, unknown>) => {
    res.status(status).render('sandbox/dashboard', {
      categories: RULE_CATEGORIES,
      policies: RULE_POLICIES,
      rulesets: RULESETS,
      flags: LOADBALANCER_FLAGS,
      error: null,
      saved: false,
      counters: null,
      ...locals,
    });
  };

  const page = (handler: (req: Request, res: Response) => void) => (req: Request, res: Response) => {
    try {
      handler(req, res);
    } catch (error) {
      if (!(error instanceof SandboxError)) throw error;
      render(res, error.httpStatus, { view: 'error', website: null, key: '', error });
    }
  };

  router.get(
    path,
    page((req, res) => {
      const { website, key } = open(req);
      const view = String(req.params.view);
      render(res, 200, { view, website, key, counters: view === 'statistics' ? context.store.counters(website.domain) : null });
    }),
  );

  router.post(
    '/:lang/website/:domain/edit',
    express.urlencoded({ extended: true, limit: '100kb' }),
    page((req, res) => {
      const { principal, website, key } = open(req);
      const form = req.body as { settings?: SettingsPatch & { rulesets?: Record<string, unknown> } };
      // Unticked checkboxes are absent from a form post: every ruleset and switch the page shows is sent as off.
      const settings = {
        rules: form.settings?.rules ?? {},
        rulesets: Object.fromEntries(RULESETS.map((name) => [name, form.settings?.rulesets?.[name] ?? 'false'])),
        loadbalancer: {
          ...Object.fromEntries(LOADBALANCER_FLAGS.map((name) => [name, form.settings?.loadbalancer?.[name] ?? 'false'])),
          ...(form.settings?.loadbalancer?.certs_issuer ? { certs_issuer: form.settings.loadbalancer.certs_issuer } : {}),
        },
      };
      try {
        const input = parseOr422(websiteUpdateBodySchema, normalizeFormWebsite({ settings }));
        const updated = context.websites.update(principal, website.domain, input);
        render(res, 200, { view: 'edit', website: updated, key, saved: true });
      } catch (error) {
        if (!(error instanceof SandboxError)) throw error;
        render(res, error.httpStatus, { view: 'edit', website, key, error });
      }
    }),
  );

  return router;
}
