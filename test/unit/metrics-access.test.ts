/**
 * Who may read GET /metrics. The integration tests reach the plugin from loopback only (it
 * listens on 127.0.0.1), so the refusal of other addresses is tested here, on the middleware
 * itself with the request fields it reads.
 */
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.js';
import { isLoopbackAddress, metricsAccess } from '../../src/web/metrics.routes.js';

describe('isLoopbackAddress', () => {
  it.each(['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '::FFFF:127.1.2.3', '0:0:0:0:0:0:0:1'])('%s is loopback', (address) => {
    expect(isLoopbackAddress(address)).toBe(true);
  });
  it.each(['10.0.0.1', '192.0.2.5', '::ffff:10.0.0.1', '::2', 'fe80::1', '128.0.0.1', '127.0.0.1.example', '', undefined])(
    '%s is not',
    (address) => {
      expect(isLoopbackAddress(address)).toBe(false);
    },
  );
});

/** What the middleware reads of a request: the socket's address and the headers. */
const request = (remoteAddress: string, headers: Record<string, string> = {}) =>
  ({ socket: { remoteAddress }, headers, get: (name: string) => headers[name.toLowerCase()] }) as unknown as Request;
const response = () => {
  const set: Record<string, string> = {};
  return { res: { set: (name: string, value: string) => void (set[name] = value) } as unknown as Response, set };
};

function decide(token: string | undefined, req: Request, installed = false): 'passed' | unknown {
  let passed = false;
  try {
    metricsAccess(token, { installed })(req, response().res, () => void (passed = true));
  } catch (error) {
    return error;
  }
  return passed ? 'passed' : 'neither';
}

describe('metricsAccess', () => {
  it('without a token: lets loopback clients through and refuses others, saying to set WPP_METRICS_TOKEN', () => {
    expect(decide(undefined, request('127.0.0.1'))).toBe('passed');
    expect(decide(undefined, request('::1'))).toBe('passed');
    const refused = decide(undefined, request('203.0.113.9'));
    expect(isAppError(refused, 'FORBIDDEN')).toBe(true);
    expect((refused as Error).message).toContain('set WPP_METRICS_TOKEN');
    expect(isAppError(decide(undefined, request('::ffff:192.0.2.1')), 'FORBIDDEN')).toBe(true);
  });

  it('without a token: refuses what a proxy on this machine forwards', () => {
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      expect(isAppError(decide(undefined, request('127.0.0.1', { [header]: '203.0.113.9' })), 'FORBIDDEN')).toBe(true);
    }
  });

  it('with a token: requires it from every address, and lets it through from any', () => {
    const token = 'metrics-token-0123456789abcdef';
    expect(isAppError(decide(token, request('127.0.0.1')), 'UNAUTHORIZED')).toBe(true);
    expect(isAppError(decide(token, request('127.0.0.1', { authorization: 'Bearer wrong-token-0123456789' })), 'UNAUTHORIZED')).toBe(true);
    expect(isAppError(decide(token, request('127.0.0.1', { authorization: token })), 'UNAUTHORIZED')).toBe(true);
    expect(decide(token, request('203.0.113.9', { authorization: `Bearer ${token}` }))).toBe('passed');
    expect(decide(token, request('203.0.113.9', { authorization: `bearer ${token}`, 'x-forwarded-for': '198.51.100.1' }))).toBe('passed');
    const { res, set } = response();
    expect(() => metricsAccess(token, { installed: false })(request('127.0.0.1'), res, () => undefined)).toThrow(/WPP_METRICS_TOKEN/);
    expect(set['WWW-Authenticate']).toMatch(/^Bearer/);
  });

  it('once installed (every customer of a shared server is local): refuses even loopback without a token, saying to set WPP_METRICS_TOKEN', () => {
    for (const address of ['127.0.0.1', '::1', '203.0.113.9']) {
      const refused = decide(undefined, request(address), true);
      expect(isAppError(refused, 'FORBIDDEN'), address).toBe(true);
      expect((refused as Error).message).toContain('set WPP_METRICS_TOKEN');
    }
    const token = 'metrics-token-0123456789abcdef';
    expect(decide(token, request('127.0.0.1', { authorization: `Bearer ${token}` }), true)).toBe('passed');
    expect(isAppError(decide(token, request('127.0.0.1'), true), 'UNAUTHORIZED')).toBe(true);
  });
});
