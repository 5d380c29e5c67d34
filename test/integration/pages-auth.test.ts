/**
 * Signing into the pages: a panel's launch token becomes a session once; refused tokens get
 * a clear page and a log line without the token; sessions end idle, at their absolute end
 * and at logout; every form needs the session's CSRF token; the headers hold the CSP.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLaunchToken } from '../../src/core/launch-tokens.js';
import { admin, customer, launchUrl, type LaunchTarget } from '../helpers/pages.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { startTestPlugin } from '../helpers/plugin.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { removeTempDir } from '../helpers/temp.js';

/** A plugin whose log lines are kept, with a clock the test moves. */
async function withPages<T>(
  fn: (ctx: { url: string; site: LaunchTarget; logs: string[]; clock: { now: number } }) => Promise<T>,
  env: Record<string, string> = {},
): Promise<T> {
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const clock = { now: Date.now() };
  const sandbox = await startTestSandbox();
  const plugin = await startTestPlugin(sandbox, { env, logger: pino({ level: 'info' }, stream), now: () => clock.now });
  try {
    return await fn({ url: plugin.url, site: { url: plugin.url, dataDir: plugin.dataDir }, logs, clock });
  } finally {
    await plugin.close();
    await sandbox.close();
    removeTempDir(plugin.dataDir);
    removeTempDir(sandbox.dataDir);
  }
}

describe('launch', () => {
  it('exchanges a token once for a session cookie and sends the browser on without the token', async () => {
    await withPages(async ({ url, site, logs, clock }) => {
      const client = createPageClient(url);
      const link = launchUrl(site, customer('alice', 'shop.example'), { now: clock.now });
      const first = await client.get(link);
      expect(first.status).toBe(303);
      expect(first.headers.get('location')).toBe('/panel/domains/shop.example');
      const cookie = first.headers.getSetCookie().find((line) => line.startsWith('wpp_customer='));
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).not.toMatch(/Secure/);
      expect(first.headers.get('cache-control')).toBe('no-store');
      expect((await client.get('/panel')).status).toBe(200);

      const replay = await createPageClient(url).get(link);
      expect(replay.status).toBe(401);
      expect(textOf(replay.body)).toContain('This sign-in link was already used');
      const token = new URL(link).searchParams.get('token') ?? '';
      const refusal = logs.find((line) => line.includes('launch token refused'));
      expect(refusal).toContain('"reason":"replayed"');
      expect(logs.join('\n')).not.toContain(token.split('.')[1]);
    });
  });

  it('refuses expired, tampered, foreign and wrong-role tokens with a page that says why', async () => {
    await withPages(async ({ url, site, logs, clock }) => {
      const client = createPageClient(url);
      const expired = await client.get(launchUrl(site, customer('alice'), { now: clock.now - 61_000 }));
      expect(expired.status).toBe(401);
      expect(textOf(expired.body)).toContain('This sign-in link has expired');

      const good = launchUrl(site, customer('alice'), { now: clock.now });
      const [encoded, signature] = (new URL(good).searchParams.get('token') ?? '').split('.') as [string, string];
      const claims = JSON.parse(Buffer.from(encoded, 'base64url').toString()) as Record<string, unknown>;
      const forged = Buffer.from(JSON.stringify({ ...claims, account: 'mallory' })).toString('base64url');
      const tampered = await client.get(`${url}/launch?token=${forged}.${signature}`);
      expect(tampered.status).toBe(401);
      expect(textOf(tampered.body)).toContain('not made by your control panel');

      const foreign = await client.get(launchUrl(site, admin(), { now: clock.now, secret: 'another-panels-secret-0123456789' }));
      expect(foreign.status).toBe(401);

      const wrongRole = await client.get(launchUrl(site, customer('alice'), { now: clock.now, next: '/admin/jobs' }));
      expect(wrongRole.status).toBe(403);
      expect(textOf(wrongRole.body)).toContain('does not open these pages');

      const missing = await client.get('/launch');
      expect(missing.status).toBe(400);
      expect(client.cookies.size).toBe(0);
      expect(logs.filter((line) => line.includes('launch token refused')).map((line) => JSON.parse(line).reason)).toEqual([
        'expired',
        'bad_signature',
        'bad_signature',
        'wrong_role',
      ]);
    });
  });

  it('a token accepted once signs in only its role: a customer session opens no admin page', async () => {
    await withPages(async ({ url, site, clock }) => {
      const client = createPageClient(url);
      await client.get(launchUrl(site, customer('alice'), { now: clock.now }));
      expect((await client.get('/panel')).status).toBe(200);
      const adminPage = await client.get('/admin');
      expect(adminPage.status).toBe(401);
      expect(textOf(adminPage.body)).toContain('You are not signed in here');
      // Only a local page is a target: an address elsewhere is ignored, the role's landing page used.
      const offsite = await createPageClient(url).get(launchUrl(site, admin(), { now: clock.now, next: '//evil.example/admin' }));
      expect(offsite.headers.get('location')).toBe('/admin');
    });
  });

  it('over https, names the cookie __Host- (Secure, Path=/, no Domain) and reads only that name', async () => {
    await withPages(
      async ({ url, site, clock }) => {
        const answer = await createPageClient(url).get(launchUrl(site, admin(), { now: clock.now }));
        const line = answer.headers.getSetCookie().find((l) => l.startsWith('__Host-wpp_admin=')) ?? '';
        expect(line).toMatch(/; Secure/);
        expect(line).toMatch(/; Path=\//);
        expect(line).not.toMatch(/Domain=/i);
        const value = /^__Host-wpp_admin=([^;]+)/.exec(line)?.[1] ?? '';
        const open = (cookie: string) => fetch(`${url}/admin`, { headers: { cookie }, redirect: 'manual' }).then((r) => r.status);
        // The same value without the prefix (as another host or plain http could set it) opens nothing.
        expect(await open(`wpp_admin=${value}`)).toBe(401);
        expect(await open(`__Host-wpp_admin=${value}`)).toBe(200);
      },
      { WPP_PUBLIC_URL: 'https://plugin.host.example' },
    );
  });
});

describe('sessions', () => {
  it('end after the idle timeout, and at their absolute end however active', async () => {
    await withPages(
      async ({ url, site, clock }) => {
        const idle = createPageClient(url);
        await idle.get(launchUrl(site, customer('alice'), { now: clock.now }));
        clock.now += 9 * 60_000;
        expect((await idle.get('/panel')).status).toBe(200);
        clock.now += 9 * 60_000;
        expect((await idle.get('/panel')).status).toBe(200);
        clock.now += 10 * 60_000 + 1;
        const ended = await idle.get('/panel');
        expect(ended.status).toBe(401);
        expect(textOf(ended.body)).toContain('without activity');

        const busy = createPageClient(url);
        await busy.get(launchUrl(site, customer('alice'), { now: clock.now }));
        for (let minutes = 9; minutes <= 54; minutes += 9) {
          clock.now += 9 * 60_000;
          expect((await busy.get('/panel')).status).toBe(200);
        }
        clock.now += 9 * 60_000;
        const capped = await busy.get('/panel');
        expect(capped.status).toBe(401);
        expect(textOf(capped.body)).toContain('time limit');
      },
      { WPP_SESSION_IDLE_MINUTES: '10', WPP_SESSION_MAX_HOURS: '1' },
    );
  });

  it('logout ends the session; a form without the CSRF token changes nothing', async () => {
    await withPages(async ({ url, site, clock }) => {
      const client = createPageClient(url);
      await client.get(launchUrl(site, admin(), { now: clock.now }));
      await client.get('/admin');
      const noToken = await client.post('/admin/logout', { _csrf: null });
      expect(noToken.status).toBe(403);
      expect(textOf(noToken.body)).toContain('nothing was changed');
      const wrongToken = await client.post('/admin/logout', { _csrf: 'x'.repeat(64) });
      expect(wrongToken.status).toBe(403);
      expect((await client.get('/admin')).status).toBe(200);

      const out = await client.post('/admin/logout');
      expect(out.status).toBe(200);
      expect(textOf(out.body)).toContain('You are signed out');
      expect((await client.get('/admin')).status).toBe(401);
    });
  });
});

describe('headers', () => {
  it('send a CSP: scripts and styles from the plugin, frames of the dashboard, framed by WPP_FRAME_ANCESTORS', async () => {
    await withPages(
      async ({ url, site, clock }) => {
        const client = createPageClient(url);
        await client.get(launchUrl(site, admin(), { now: clock.now }));
        const page = await client.get('/admin');
        const csp = page.headers.get('content-security-policy') ?? '';
        expect(csp).toContain("script-src 'self'");
        expect(csp).toContain("style-src 'self'");
        expect(csp).toContain('frame-ancestors https://cpanel.host.example:2083 https://*.host.example');
        expect(csp).toMatch(/frame-src http:\/\/127\.0\.0\.1:\d+;/);
        expect(page.headers.get('x-content-type-options')).toBe('nosniff');
        expect(page.headers.get('referrer-policy')).toBe('no-referrer');
        expect(page.body).not.toMatch(/<script>|style="/);
      },
      { WPP_FRAME_ANCESTORS: 'https://cpanel.host.example:2083 https://*.host.example' },
    );
  });
});

describe('the token format', () => {
  it('is two base64url parts: the claims and their signature with the sign-in key', () => {
    const { token } = createLaunchToken('a-sign-in-key-0123456789abcdef', admin(), { now: 0 });
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });
});
