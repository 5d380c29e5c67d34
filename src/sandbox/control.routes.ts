import express, { type Request } from 'express';
import { z } from 'zod';
import { buildOpenApiDocument } from '../provider/openapi.js';
import { normalizeDomain } from '../provider/spec.js';
import { authenticate } from './api.routes.js';
import { bulkTrafficBodySchema, bulkWebsitesBodySchema, nxdomainBodySchema, trafficBodySchema } from './bodies.js';
import type { SandboxContext } from './context.js';
import { forbidden, notFound, SandboxError } from './errors.js';
import { faultSchema } from './faults.js';
import { parseOr422 } from './validation.js';
import { DEFAULT_SETTINGS, websiteToJson } from './websites.js';

const limitSchema = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) });

/**
 * `/_sandbox/...`: how tests and demos drive the provider's side of the world (traffic, DNS,
 * faults), and the interface's OpenAPI document. Partner key only, but for the document; it
 * never sees the /v1.0 faults.
 */
export function createControlRouter(context: SandboxContext): express.Router {
  const router = express.Router();
  const { store } = context;

  // The interface's description is no secret: served without a key, so tools can read it as they find it.
  let document: unknown;
  router.get('/openapi.json', (_req, res) => {
    document ??= buildOpenApiDocument();
    res.json(document);
  });

  router.use((req, _res, next) => {
    if (!authenticate(context, req).user.isPartner) throw forbidden('The control API takes the partner key');
    next();
  });

  const existingDomain = (req: Request): string => {
    const raw = String(req.params.domain ?? '');
    const domain = normalizeDomain(raw);
    if (!domain || !store.getWebsite(domain)) throw notFound(`Website ${raw} does not exist`);
    return domain;
  };

  /**
   * `POST /_sandbox/websites/bulk` `{"user_id", "domains": [...], "ip"?: [...], "status"?: "online"|"paused", "hits"?: N}`
   * seeds up to 200,000 websites of one existing user in one transaction, straight into the
   * store: DNS verified now, no certificate issuance (status = the requested status, default
   * online), default settings, no subdomains, tags or callbackUrl, `ip` default
   * ["203.0.113.10"], and `hits` cumulative hits each (none blocked; default 0). The user's
   * domain limit is not applied and no callback is sent. Answers `{"created": N}`. Nothing
   * is written when anything is refused: 422 lists the invalid domains (by index), 404 an
   * unknown user, 409 the domains that already exist or repeat in the body (`details` capped
   * at MAX_ERROR_DETAILS like every error, `details_omitted` counting the rest).
   */
  router.post('/websites/bulk', (req, res) => {
    const body = parseOr422(bulkWebsitesBodySchema, req.body ?? {});
    if (!store.getUser(body.user_id)) throw notFound(`User ${body.user_id} does not exist`);
    const created = store.transaction(() => {
      const seen = new Set<string>();
      const duplicates = new Set<string>();
      for (const domain of body.domains) {
        if (seen.has(domain) || store.websiteExists(domain)) duplicates.add(domain);
        seen.add(domain);
      }
      if (duplicates.size > 0) {
        const listed = [...duplicates];
        throw new SandboxError(
          409,
          'already_exists',
          `A website already exists (or repeats in the body) for ${listed.length} domain${listed.length === 1 ? '' : 's'}: ` +
            `${listed.slice(0, 20).join(', ')}${listed.length > 20 ? ', ...' : ''}`,
          listed.map((domain) => ({ path: 'domains', message: `${domain} already exists` })),
        );
      }
      return store.insertSeededWebsites({
        userId: body.user_id,
        domains: body.domains,
        ip: body.ip,
        status: body.status,
        settings: DEFAULT_SETTINGS,
        hits: body.hits,
        at: context.now(),
      });
    });
    res.status(201).json({ created });
  });

  router.post('/websites/:domain/traffic', (req, res) => {
    const domain = existingDomain(req);
    const body = parseOr422(trafficBodySchema, req.body ?? {});
    store.addTraffic(domain, context.now(), body.hits, body.blocked, body.mitigated, body.category);
    res.json({ domain, ...store.counters(domain) });
  });

  router.post('/traffic', (req, res) => {
    const items = parseOr422(bulkTrafficBodySchema, req.body ?? []);
    const at = context.now();
    const missing: string[] = [];
    store.transaction(() => {
      for (const item of items) {
        if (store.counters(item.domain)) store.addTraffic(item.domain, at, item.hits, item.blocked, item.mitigated, item.category);
        else missing.push(item.domain);
      }
    });
    res.json({ applied: items.length - missing.length, missing });
  });

  router.post('/websites/:domain/counters/reset', (req, res) => {
    const domain = existingDomain(req);
    store.resetCounters(domain, context.now());
    res.json({ domain, ...store.counters(domain) });
  });

  router.post('/websites/:domain/dns-verified', (req, res) => {
    res.json(websiteToJson(context.websites.verifyDns(existingDomain(req))));
  });

  router.post('/nxdomain', (req, res) => {
    const { domains } = parseOr422(nxdomainBodySchema, req.body ?? {});
    store.transaction(() => domains.forEach((domain) => store.addNxdomain(domain)));
    res.json({ nxdomain: domains });
  });

  // The owner fixed the DNS: the domains resolve again (a refused website can be provisioned now).
  router.delete('/nxdomain', (req, res) => {
    const { domains } = parseOr422(nxdomainBodySchema, req.body ?? {});
    store.transaction(() => domains.forEach((domain) => store.removeNxdomain(domain)));
    res.json({ resolving: domains });
  });

  router.get('/faults', (_req, res) => {
    res.json(context.faults.current());
  });

  router.post('/faults', (req, res) => {
    const fault = parseOr422(faultSchema, req.body ?? {});
    context.faults.set(fault);
    context.logger.info({ fault }, 'sandbox fault set');
    res.json(context.faults.current());
  });

  router.get('/requests', (req, res) => {
    const { limit } = parseOr422(limitSchema, req.query);
    res.json(context.requestLog.recent(limit));
  });

  router.get('/callbacks', (req, res) => {
    const { limit } = parseOr422(limitSchema, req.query);
    res.json(
      store.listCallbacks(limit).map((callback) => ({
        id: callback.id,
        domain: callback.domain,
        url: callback.url,
        body: JSON.parse(callback.body) as unknown,
        attempts: callback.attempts,
        last_status: callback.lastStatus,
        last_error: callback.lastError,
        delivered_at: callback.deliveredAt === null ? null : new Date(callback.deliveredAt).toISOString(),
        gave_up_at: callback.gaveUpAt === null ? null : new Date(callback.gaveUpAt).toISOString(),
        next_attempt_at: callback.nextAttemptAt === null ? null : new Date(callback.nextAttemptAt).toISOString(),
      })),
    );
  });

  router.post('/reset', (_req, res) => {
    store.reset();
    context.faults.set(faultSchema.parse({ mode: 'none' }));
    context.rateLimiter.reset();
    context.requestLog.clear();
    res.json({ status: 'ok' });
  });

  router.use((req) => {
    throw notFound(`No such control endpoint: ${req.method} /_sandbox${req.path}`);
  });

  return router;
}
