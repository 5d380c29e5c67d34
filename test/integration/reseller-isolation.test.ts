/**
 * A reseller sees and changes their own customers only. Reseller res1, signed in, tampers with
 * the ids of every /reseller route (the routes are read from the pages' router, so a page added
 * later is covered too): another reseller's (bob, res2) and the host's own customer's (carol)
 * account and domain in the path, in the query and in every form field. Each answer must be the
 * very answer for an account and a domain that do not exist (names swapped back): nothing of
 * theirs is shown, not even that they exist; and no row of any database changes.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createPagesRouter, type PagesDeps } from '../../src/web/pages/pages.routes.js';
import { withPlugin } from '../helpers/plugin.js';
import { routesOf } from '../helpers/routes.js';
import { FLEET_ENV, othersIn, seedFleet, signInReseller } from './reseller-fleet.js';

/** Stands in for every dependency: the routers are built only to list their routes, never asked anything. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a stand-in of any shape
const anything: any = new Proxy(function stub() {}, { get: (_t, p) => (p === 'then' ? undefined : anything), apply: () => anything });

/** Every route of the reseller area, logout aside (it ends the session, and shows nothing). */
const RESELLER_ROUTES = routesOf(createPagesRouter(anything as PagesDeps)).filter(
  (r) => /^\/reseller(\/|$)/.test(r.path) && r.path !== '/reseller/logout',
);

/** Whose ids res1 tries: res2's customer, the host's own customer, and (the yardstick) nobody's. */
const TARGETS = {
  otherReseller: { account: 'bob', domain: 'bob.example' },
  host: { account: 'carol', domain: 'carol.example' },
} as const;
const NOBODY = { account: 'nobody9', domain: 'nobody9.example' };
type Target = { account: string; domain: string };

/** The ways a route can be given an id: each field a form or a filter of any reseller page reads. */
function attempts(path: string, method: string, target: Target) {
  const concrete = path.replaceAll(':domain', encodeURIComponent(target.domain)).replaceAll(':account', target.account);
  const query: Record<string, string>[] = [
    { account: target.account, domain: target.domain, q: target.account },
    { q: target.domain, match: 'contains' },
  ];
  const form: Record<string, string>[] = [
    { scope: 'account', subject: target.account, 'website-hits': '1', account: target.account, domain: target.domain, monitor_days: '0' },
    { scope: 'website', subject: target.domain, 'website-hits': '1', domains: target.domain, monitor_days: '' },
  ];
  return method === 'GET'
    ? query.map((q) => ({ url: `${concrete}?${new URLSearchParams(q).toString()}`, form: undefined }))
    : form.map((f) => ({ url: `${concrete}?${new URLSearchParams({ account: target.account, domain: target.domain })}`, form: f }));
}

/** Every row of every table of every SQLite file under `dir` (the plugin's and the sandbox's), sessions aside. */
function snapshot(dir: string): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.sqlite') || f.endsWith('.db'));
  for (const file of files) {
    const db = new Database(join(dir, file), { readonly: true, fileMustExist: true });
    try {
      for (const { name } of db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all()) {
        if (name === 'sessions' || name === 'launch_nonces') continue;
        out[`${file}:${name}`] = db.prepare(`SELECT * FROM "${name}"`).all();
      }
    } finally {
      db.close();
    }
  }
  return out;
}

/** An answer with the ids it was asked about written as placeholders: two answers alike but for the ids asked compare equal. */
const shape = (answer: { status: number; location: string | null; body: string }, target: Target) => {
  const swap = (text: string) =>
    text.replaceAll(encodeURIComponent(target.domain), 'DOMAIN').replaceAll(target.domain, 'DOMAIN').replaceAll(target.account, 'ACCOUNT');
  return { status: answer.status, location: answer.location && swap(answer.location), body: swap(answer.body) };
};

describe('a reseller sees and changes only their own customers', () => {
  it('lists the routes it checks (the router is read, not a list kept by hand)', () => {
    const paths = RESELLER_ROUTES.map((r) => `${r.method} ${r.path}`);
    for (const expected of [
      'GET /reseller',
      'GET /reseller/websites',
      'GET /reseller/websites/:domain',
      'POST /reseller/websites/:domain/pause',
      'POST /reseller/websites/:domain/resume',
      'POST /reseller/websites/:domain/reprovision',
      'GET /reseller/accounts',
      'GET /reseller/runs',
      'GET /reseller/enforcement.csv',
      'GET /reseller/limits',
      'POST /reseller/limits',
      'GET /reseller/bulk-protect',
      'POST /reseller/bulk-protect',
    ])
      expect(paths).toContain(expected);
    // Not the reseller's: the host's jobs, import, plugin settings, plans and the demo.
    expect(paths.filter((p) => /jobs|import|settings|plans|demo/.test(p))).toEqual([]);
  });

  it("tampering with another reseller's and the host's ids on every route and form shows nothing of theirs and changes nothing", async () => {
    await withPlugin(
      async (plugin, sandbox) => {
        await seedFleet(plugin);
        const client = await signInReseller(plugin);
        // res1's own domains protected first, so their bulk protect has nothing of its own left to do.
        expect((await client.post('/reseller/bulk-protect', { monitor_days: '0' })).status).toBe(303);
        await plugin.idle();
        const both = () => ({ ...snapshot(plugin.dataDir), ...snapshot(sandbox.dataDir) });
        const before = both();
        const ask = async (method: string, url: string, form?: Record<string, string>) => {
          const answer = method === 'GET' ? await client.get(url) : await client.post(url, form ?? {});
          return { status: answer.status, location: answer.headers.get('location'), body: answer.body };
        };
        const differing: string[] = [];
        const leaking: string[] = [];
        let tried = 0;
        for (const route of RESELLER_ROUTES) {
          for (const [whose, target] of Object.entries(TARGETS)) {
            const theirs = attempts(route.path, route.method, target);
            const nobodys = attempts(route.path, route.method, NOBODY);
            for (const [i, attempt] of theirs.entries()) {
              const yardstick = nobodys[i] as (typeof nobodys)[number];
              const answer = await ask(route.method, attempt.url, attempt.form);
              const expected = await ask(route.method, yardstick.url, yardstick.form);
              tried++;
              if (!isDeepStrictEqual(shape(answer, target), shape(expected, NOBODY)))
                differing.push(`${route.method} ${attempt.url} (${whose}): ${answer.status}, for nobody's ${expected.status}`);
              const found = othersIn(answer.body.replaceAll(target.domain, '').replaceAll(target.account, ''));
              if (found.length > 0) leaking.push(`${route.method} ${attempt.url} (${whose}): shows ${found.join(', ')}`);
            }
          }
        }
        expect(tried).toBeGreaterThanOrEqual(RESELLER_ROUTES.length * 4);
        expect(differing).toEqual([]);
        expect(leaking).toEqual([]);
        // Every page asked: the domain pages and the actions on bob's and carol's domains were not found, as nobody's.
        const notFound = await ask('GET', '/reseller/websites/bob.example');
        expect(notFound.status).toBe(404);
        for (const action of ['pause', 'resume', 'reprovision'])
          expect((await ask('POST', `/reseller/websites/carol.example/${action}`)).status).toBe(404);
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(both()).toEqual(before);
      },
      { env: FLEET_ENV },
    );
  }, 120_000);
});
