import { randomUUID } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { normalizeDomain } from '../provider/spec.js';
import {
  assetBodySchema,
  normalizeFormUserUpdate,
  normalizeFormWebsite,
  statisticsQuerySchema,
  userCreateBodySchema,
  userUpdateBodySchema,
  websiteCreateBodySchema,
  websiteUpdateBodySchema,
} from './bodies.js';
import { alreadyExists, conflict, forbidden, notFound, SandboxError } from './errors.js';
import type { SandboxContext } from './context.js';
import { parseOr422 } from './validation.js';
import { websiteToJson, type Principal } from './websites.js';
import type { StoredUser } from './store.js';
import type {
  WireAsset,
  WireUser,
  WireUserStatistics,
  WireUserWithKey,
  WireWebsiteDeleted,
  WireUserDeleted,
  WireWebsiteStatistics,
} from '../provider/wire.js';

/** Reads the key from `Authorization: Bearer KEY` or the bare `Authorization: KEY`. */
export function keyFromAuthorization(header: string | undefined): string | null {
  if (!header) return null;
  const trimmed = header.trim();
  const key = /^bearer\s+/i.test(trimmed) ? trimmed.replace(/^bearer\s+/i, '') : trimmed;
  return key === '' ? null : key;
}

export function authenticate(context: SandboxContext, req: Request): Principal {
  const key = keyFromAuthorization(req.get('authorization'));
  if (!key) throw new SandboxError(401, 'unauthorized', 'Missing API key: send Authorization: Bearer <API_KEY>');
  const user = context.store.getUserByKey(key);
  if (!user) throw new SandboxError(401, 'unauthorized', 'Unknown API key');
  return { user };
}

const principalOf = (res: Response): Principal => res.locals.principal as Principal;
const isForm = (req: Request) => typeof req.is('application/x-www-form-urlencoded') === 'string';
const bodyOf = (req: Request): Record<string, unknown> =>
  req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};

/** A domain from the path, normalised like the body's; unusable names simply do not exist. */
function domainParam(req: Request): string {
  const raw = String(req.params.domain ?? '');
  const domain = normalizeDomain(raw);
  if (!domain) throw notFound(`Website ${raw} does not exist`);
  return domain;
}

function userToJson(context: SandboxContext, user: StoredUser, withKey: boolean): WireUser | WireUserWithKey {
  return {
    id: user.id,
    ...(withKey ? { api_key: user.apiKey } : {}),
    tag: user.tag,
    server: context.store.serverIps(user.id),
    domain_limit: user.domainLimit,
    websites: context.store.countWebsites(user.id),
    created_at: new Date(user.createdAt).toISOString(),
  };
}

function visibleUser(context: SandboxContext, principal: Principal, rawId: string): StoredUser {
  const id = rawId.trim().toLowerCase();
  if (!principal.user.isPartner && principal.user.id !== id) throw forbidden(`This API key may not read user ${id}`);
  const user = context.store.getUser(id);
  if (!user || (user.isPartner && !principal.user.isPartner)) throw notFound(`User ${id} does not exist`);
  return user;
}

const requirePartner = (principal: Principal, action: string) => {
  if (!principal.user.isPartner) throw forbidden(`Only the partner key may ${action}`);
};

function statisticsJson(context: SandboxContext, domain: string, query: Request['query'], createdAt: number): WireWebsiteStatistics {
  const range = parseOr422(statisticsQuerySchema, query);
  const now = context.now();
  const from = range.from ? Date.parse(range.from) : undefined;
  const to = range.to ? Date.parse(range.to) : undefined;
  const bounded = from !== undefined || to !== undefined;
  const totals = context.store.trafficTotals(domain, bounded ? { from: from ?? createdAt, to: to ?? now } : undefined);
  if (!totals) throw notFound(`Website ${domain} does not exist`);
  return {
    domain,
    from: new Date(from ?? createdAt).toISOString(),
    to: new Date(to ?? now).toISOString(),
    total: totals.total,
    permitted: totals.total - totals.blocked,
    blocked: totals.blocked,
    mitigated: {
      total: totals.blocked + totals.captcha,
      captcha: totals.captcha,
      deny: totals.blocked,
      by_category: totals.byCategory,
    },
  };
}

/** The provider interface, /v1.0, exactly as the spec and the sandbox's documented choices (docs/sandbox.md) describe. */
export function createApiRouter(context: SandboxContext): express.Router {
  const router = express.Router();
  const { store, websites } = context;

  router.use((req, res, next) => {
    res.locals.principal = authenticate(context, req);
    const waitMs = context.rateLimiter.take(principalOf(res).user.id);
    if (waitMs > 0) {
      const seconds = String(Math.max(1, Math.ceil(waitMs / 1000)));
      throw new SandboxError(429, 'rate_limited', `Too many requests for this API key; retry after ${seconds} s`, [], {
        'Retry-After': seconds,
      });
    }
    next();
  });

  const listUsers = (_req: Request, res: Response) => {
    const principal = principalOf(res);
    const users = principal.user.isPartner ? store.listUsers() : [principal.user];
    res.json(users.map((user) => userToJson(context, user, false)));
  };

  router.get('/user', listUsers);
  router.post('/user', (req, res) => {
    const body = bodyOf(req);
    if (body.id === undefined) return listUsers(req, res);
    const principal = principalOf(res);
    requirePartner(principal, 'create users');
    const { id } = parseOr422(userCreateBodySchema, body);
    if (store.getUser(id)) throw alreadyExists(`User ${id} already exists`);
    const at = context.now();
    const user: StoredUser = {
      id,
      apiKey: randomUUID(),
      isPartner: false,
      domainLimit: context.defaultDomainLimit,
      tag: [],
      createdAt: at,
      updatedAt: at,
    };
    store.insertUser(user);
    res.status(201).json(userToJson(context, user, true));
  });

  router.get('/user/:id', (req, res) => {
    res.json(userToJson(context, visibleUser(context, principalOf(res), String(req.params.id)), true));
  });

  router.put('/user/:id', (req, res) => {
    const principal = principalOf(res);
    requirePartner(principal, 'change users');
    const user = visibleUser(context, principal, String(req.params.id));
    const body = isForm(req) ? normalizeFormUserUpdate(bodyOf(req)) : bodyOf(req);
    const patch = parseOr422(userUpdateBodySchema, body);
    const next: StoredUser = {
      ...user,
      domainLimit: patch.domain_limit === undefined ? user.domainLimit : patch.domain_limit,
      tag: patch.tag ?? user.tag,
      updatedAt: context.now(),
    };
    store.saveUser(next);
    res.json(userToJson(context, next, true));
  });

  router.delete('/user/:id', (req, res) => {
    const principal = principalOf(res);
    requirePartner(principal, 'delete users');
    const user = visibleUser(context, principal, String(req.params.id));
    if (user.isPartner) throw forbidden('The partner cannot be deleted');
    const count = store.countWebsites(user.id);
    if (count > 0) throw conflict(`User ${user.id} still owns ${count} website${count === 1 ? '' : 's'}`);
    store.deleteUser(user.id);
    res.json({ status: 'ok', id: user.id } satisfies WireUserDeleted);
  });

  router.get('/user/:id/statistics', (req, res) => {
    const user = visibleUser(context, principalOf(res), String(req.params.id));
    const totals = store.userTotals(user.id);
    res.json({
      user_id: user.id,
      websites: totals.websites,
      total: totals.total,
      permitted: totals.total - totals.blocked,
      blocked: totals.blocked,
      mitigated: { total: totals.blocked + totals.captcha, captcha: totals.captcha, deny: totals.blocked },
    } satisfies WireUserStatistics);
  });

  const addAsset = (kind: 'device' | 'server') => (req: Request, res: Response) => {
    const principal = principalOf(res);
    const input = parseOr422(assetBodySchema, bodyOf(req));
    const ownerId = input.user_id ?? principal.user.id;
    if (!principal.user.isPartner && ownerId !== principal.user.id) {
      throw forbidden(`This API key may not add a ${kind} for ${ownerId}`);
    }
    if (!store.getUser(ownerId)) throw notFound(`User ${ownerId} does not exist`);
    const exists = kind === 'device' ? store.deviceExists(input.ip) : store.serverExists(input.ip);
    if (exists) throw alreadyExists(`A ${kind} with address ${input.ip} already exists`);
    const asset = {
      id: randomUUID(),
      ip: input.ip,
      userId: ownerId,
      name: input.name ?? null,
      zone: input.zone ?? null,
      tag: input.tag ?? null,
      createdAt: context.now(),
    };
    if (kind === 'device') store.insertDevice(asset);
    else store.insertServer(asset);
    res.status(201).json({
      id: asset.id,
      ip: asset.ip,
      user_id: asset.userId,
      name: asset.name,
      zone: asset.zone,
      tag: asset.tag,
      created_at: new Date(asset.createdAt).toISOString(),
    } satisfies WireAsset);
  };
  router.post('/device', addAsset('device'));
  router.post('/server', addAsset('server'));

  router.get('/website', (req, res) => {
    const principal = principalOf(res);
    if (req.query.domain === undefined) {
      res.json(websites.list(principal).map(websiteToJson));
      return;
    }
    const raw = String(req.query.domain);
    const domain = normalizeDomain(raw);
    if (!domain) throw notFound(`Website ${raw} does not exist`);
    res.json(websiteToJson(websites.get(principal, domain)));
  });

  router.post('/website', async (req, res) => {
    const body = isForm(req) ? normalizeFormWebsite(bodyOf(req)) : bodyOf(req);
    const input = parseOr422(websiteCreateBodySchema, body);
    const website = await websites.create(principalOf(res), input);
    res.status(201).json(websiteToJson(website));
  });

  router.get('/website/:domain/statistics', (req, res) => {
    const website = websites.get(principalOf(res), domainParam(req));
    res.json(statisticsJson(context, website.domain, req.query, website.createdAt));
  });

  router.get('/website/:domain', (req, res) => {
    res.json(websiteToJson(websites.get(principalOf(res), domainParam(req))));
  });

  router.put('/website/:domain', (req, res) => {
    const domain = domainParam(req);
    const body = isForm(req) ? normalizeFormWebsite(bodyOf(req)) : bodyOf(req);
    const input = parseOr422(websiteUpdateBodySchema, body);
    res.json(websiteToJson(websites.update(principalOf(res), domain, input)));
  });

  router.delete('/website/:domain', (req, res) => {
    const domain = domainParam(req);
    websites.remove(principalOf(res), domain);
    res.json({ status: 'ok', domain } satisfies WireWebsiteDeleted);
  });

  router.use((req) => {
    throw notFound(`No such endpoint: ${req.method} /v1.0${req.path}`);
  });

  return router;
}
