/**
 * GET /metrics: the Prometheus exposition of the plugin's registry (src/metrics.ts). With
 * WPP_METRICS_TOKEN set, only a scraper sending it as a bearer token gets an answer; without
 * it, only a client on this machine talking to the plugin directly, never through a proxy,
 * and on an installed plugin nobody: on a shared server every customer with a shell is such
 * a client.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError } from '../errors.js';

export interface MetricsRouteDeps {
  /** WPP_METRICS_TOKEN, when set. */
  token: string | undefined;
  /** An installed plugin (WPP_PANEL set): without a token, /metrics answers nobody. */
  tokenRequired: boolean;
  render(): Promise<{ contentType: string; body: string }>;
}

/** 127.0.0.0/8, ::1 and IPv4-mapped 127.x: the addresses a client on this machine connects from. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const ipv4 = address.toLowerCase().replace(/^::ffff:/, '');
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ipv4)) return true;
  return address === '::1' || address === '0:0:0:0:0:0:0:1';
}

/**
 * A request a proxy passed on: a reverse proxy on this machine connects from loopback on behalf
 * of anyone, so its requests do not count as local ones.
 */
const FORWARDED_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];
export const isForwarded = (headers: Request['headers']): boolean => FORWARDED_HEADERS.some((name) => headers[name] !== undefined);

/** Compares digests, so neither the token's length nor its first wrong character shows in the time taken. */
function sameToken(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The middleware that decides who may read the metrics; exported so the non-loopback refusal is testable. */
export function metricsAccess(token: string | undefined, options: { installed: boolean }) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (token !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
      if (!match?.[1] || !sameToken(match[1], token)) {
        res.set('WWW-Authenticate', 'Bearer realm="wpp metrics"');
        throw new AppError('UNAUTHORIZED', 'GET /metrics needs the header Authorization: Bearer <WPP_METRICS_TOKEN>');
      }
      next();
      return;
    }
    if (options.installed) {
      throw new AppError(
        'FORBIDDEN',
        'GET /metrics needs WPP_METRICS_TOKEN on an installed plugin (every user of this machine is a local client): set WPP_METRICS_TOKEN in /etc/wpp/env, restart wpp, and send it as Authorization: Bearer <token>',
      );
    }
    if (!isLoopbackAddress(req.socket.remoteAddress) || isForwarded(req.headers)) {
      throw new AppError(
        'FORBIDDEN',
        'GET /metrics answers only clients on this machine (loopback, not through a proxy) while WPP_METRICS_TOKEN is unset: set WPP_METRICS_TOKEN and send it as Authorization: Bearer <token>',
      );
    }
    next();
  };
}

export function createMetricsRouter(deps: MetricsRouteDeps): express.Router {
  const router = express.Router();
  router.get('/metrics', metricsAccess(deps.token, { installed: deps.tokenRequired }), async (_req, res) => {
    const { contentType, body } = await deps.render();
    res.set('Cache-Control', 'no-store').type(contentType).send(body);
  });
  return router;
}
