import express, { type Request } from 'express';
import { z } from 'zod';
import { normalizeDomain } from '../provider/spec.js';
import { authenticate } from './api.routes.js';
import { bulkTrafficBodySchema, nxdomainBodySchema, trafficBodySchema } from './bodies.js';
import type { SandboxContext } from './context.js';
import { forbidden, notFound } from './errors.js';
import { faultSchema } from './faults.js';
import { parseOr422 } from './validation.js';
import { websiteToJson } from './websites.js';

const limitSchema = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) });

/**
 * `/_sandbox/...`: how tests and demos drive the provider's side of the world (traffic, DNS,
 * faults). Partner key only; it never sees the /v1.0 faults.
 */
export function createControlRouter(context: SandboxContext): express.Router {
  const router = express.Router();
  const { store } = context;

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
