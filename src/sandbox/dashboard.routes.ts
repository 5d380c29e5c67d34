import { createHash } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import {
  CATEGORY_WORDS,
  FIELD_WORDS,
  FLAG_WORDS,
  GROUP_WORDS,
  ISSUER_WORDS,
  POLICY_ORDER,
  POLICY_WORDS,
  RULESET_WORDS,
} from '../provider/setting-words.js';
import { LOADBALANCER_FLAGS, normalizeDomain, RULE_CATEGORIES, RULESETS, type SettingsPatch } from '../provider/spec.js';
import { normalizeFormWebsite, websiteUpdateBodySchema } from './bodies.js';
import type { SandboxContext } from './context.js';
import { notFound, SandboxError, unauthorized } from './errors.js';
import type { StoredWebsite } from './store.js';
import { parseOr422 } from './validation.js';
import type { Principal } from './websites.js';

/**
 * Tells a framing page how tall the dashboard is (`{type: 'dashboard-height', height}`, CSS
 * pixels), at load, whenever its layout changes, and when the parent asks
 * (`{type: 'dashboard-height-request'}`: its script may start after the frame loaded), so the
 * page can size the frame to it: a frame cannot size itself. The height is no secret, so any
 * parent may read it.
 */
const HEIGHT_SCRIPT = `(function () {
  if (window.parent === window || typeof ResizeObserver !== 'function') return;
  var last = 0;
  function post() {
    var height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: 'dashboard-height', height: height }, '*');
  }
  new ResizeObserver(post).observe(document.documentElement);
  window.addEventListener('message', function (event) {
    if (event.source !== window.parent || !event.data || event.data.type !== 'dashboard-height-request') return;
    last = 0;
    post();
  });
  post();
})();`;
const HEIGHT_SCRIPT_HASH = `'sha256-${createHash('sha256').update(HEIGHT_SCRIPT).digest('base64')}'`;

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
      'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; script-src ${HEIGHT_SCRIPT_HASH}; form-action 'self'; frame-ancestors *`,
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
      policies: POLICY_ORDER,
      rulesets: RULESETS,
      flags: LOADBALANCER_FLAGS,
      // The same words the partner panel's settings form uses (provider/setting-words.ts).
      words: {
        categories: CATEGORY_WORDS,
        policies: POLICY_WORDS,
        rulesets: RULESET_WORDS,
        flags: FLAG_WORDS,
        issuers: ISSUER_WORDS,
        fields: FIELD_WORDS,
        groups: GROUP_WORDS,
      },
      heightScript: HEIGHT_SCRIPT,
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
