/**
 * The DirectAdmin pages sign their user in without root: the page (running as the DirectAdmin
 * user) hands its session to the running plugin, which asks DirectAdmin's own API whose session
 * it is (GET /CMD_API_SHOW_USER_CONFIG with the session cookie) and only then makes a launch URL,
 * for exactly that user and role. A fake DirectAdmin on 127.0.0.1:0 answers as DirectAdmin
 * documents (test/helpers/fake-directadmin.ts); the plugin, its sandbox and the CLI are real.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listenerIsDirectAdmins } from '../../src/panel/directadmin-listener.js';
import { runWpp } from '../helpers/cli.js';
import { startFakeDirectAdmin, userConf, type FakeDirectAdmin } from '../helpers/fake-directadmin.js';
import { createPageClient } from '../helpers/page-client.js';
import { startTestPlugin, withPlugin } from '../helpers/plugin.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { removeTempDir } from '../helpers/temp.js';

const ALICE = { id: 'alice0session0id0000000000000000000000a', key: 'alice0key000000000000000000000000000000a' };
const ADMIN = { id: 'admin0session0id0000000000000000000000b', key: 'admin0key000000000000000000000000000000b' };

let da: FakeDirectAdmin;
let sandbox: TestSandbox;
let plugin: Awaited<ReturnType<typeof startTestPlugin>>;
let listenerTrusted = true;

beforeAll(async () => {
  da = await startFakeDirectAdmin();
  sandbox = await startTestSandbox({ certDelaySeconds: 0 });
  plugin = await startTestPlugin(sandbox, {
    env: { WPP_PANEL: 'directadmin', WPP_PANEL_CHECK_HOURS: '0' },
    directadmin: { apiUrl: da.url, listenerIsDirectAdmins: async () => listenerTrusted },
  });
});
afterAll(async () => {
  await plugin.close();
  await sandbox.close();
  await da.close();
  removeTempDir(plugin.dataDir);
  removeTempDir(sandbox.dataDir);
});
beforeEach(() => {
  listenerTrusted = true;
  da.sessions.clear();
  da.sessions.set(ALICE.id, { key: ALICE.key, conf: userConf('alice', 'user') });
  da.sessions.set(ADMIN.id, { key: ADMIN.key, conf: userConf('admin', 'admin') });
});

/** What the page hands the plugin: the session DirectAdmin gave it, the user it says is signed in, the role its level means. */
async function ask(body: Record<string, unknown>) {
  const response = await fetch(`${plugin.url}/panel-launch/directadmin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { url?: string; code?: string; message?: string } };
}

const customer = (session: { id: string; key: string }, username: string, extra: Record<string, unknown> = {}) => ({
  role: 'customer',
  sessionId: session.id,
  sessionKey: session.key,
  username,
  ...extra,
});

describe('DirectAdmin page sign-in, checked with DirectAdmin', () => {
  it("signs a user's live session into that user's own pages, asking DirectAdmin with the session cookie", async () => {
    const answer = await ask(customer(ALICE, 'alice'));
    expect(answer.status).toBe(200);
    expect(answer.body.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/launch\?token=/);
    expect(da.requests.at(-1)).toEqual({
      method: 'GET',
      path: '/CMD_API_SHOW_USER_CONFIG',
      cookie: `session=${ALICE.id}; key=${ALICE.key}`,
    });
    const browser = createPageClient(plugin.url);
    const launched = await browser.get(answer.body.url as string);
    expect(launched.status).toBe(303);
    expect(launched.headers.get('location')).toBe('/panel');
  });

  it("opens the domain DirectAdmin has selected, when it is the user's", async () => {
    const answer = await ask(customer(ALICE, 'alice', { domain: 'alice.example' }));
    const launched = await createPageClient(plugin.url).get(answer.body.url as string);
    expect(launched.headers.get('location')).toBe('/panel/domains/alice.example');
  });

  it("opens the pages in the user's DirectAdmin language (user.conf), English for one the plugin lacks or no tag", async () => {
    const pageLanguage = async (language: string, role: 'customer' | 'admin') => {
      const session = role === 'admin' ? ADMIN : ALICE;
      const username = role === 'admin' ? 'admin' : 'alice';
      da.sessions.set(session.id, { key: session.key, conf: userConf(username, role === 'admin' ? 'admin' : 'user', { language }) });
      const answer = await ask({ role, sessionId: session.id, sessionKey: session.key, username });
      expect(answer.status, language).toBe(200);
      const browser = createPageClient(plugin.url);
      expect((await browser.get(answer.body.url as string)).status, language).toBe(303);
      const page = await browser.get(role === 'admin' ? '/admin/jobs' : '/panel');
      return /<html lang="(\w+)">/.exec(page.body)?.[1];
    };
    expect(await pageLanguage('de', 'customer')).toBe('de');
    expect(await pageLanguage('es', 'admin')).toBe('es');
    expect(await pageLanguage('fr', 'customer')).toBe('en');
    expect(await pageLanguage('<b>', 'admin')).toBe('en');
  });

  it('signs an admin session into the admin pages', async () => {
    const answer = await ask({ role: 'admin', sessionId: ADMIN.id, sessionKey: ADMIN.key, username: 'admin' });
    expect(answer.status).toBe(200);
    const launched = await createPageClient(plugin.url).get(answer.body.url as string);
    expect(launched.headers.get('location')).toBe('/admin');
  });

  it('refuses a forged session, a wrong key and an expired session: nothing issued', async () => {
    const forged = await ask(customer({ id: 'f'.repeat(39), key: ALICE.key }, 'alice'));
    const wrongKey = await ask(customer({ id: ALICE.id, key: 'k'.repeat(39) }, 'alice'));
    da.sessions.delete(ALICE.id);
    const expired = await ask(customer(ALICE, 'alice'));
    for (const answer of [forged, wrongKey, expired]) {
      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe('UNAUTHORIZED');
      expect(answer.body.url).toBeUndefined();
    }
  });

  it("refuses a user asking for another user's pages: nothing issued", async () => {
    const answer = await ask(customer(ALICE, 'bob'));
    expect(answer.status).toBe(403);
    expect(answer.body.url).toBeUndefined();
    expect(answer.body.message).toContain('not the user DirectAdmin says');
  });

  it('refuses a user (or a reseller) asking for the admin pages: nothing issued', async () => {
    da.sessions.set('reseller0session', { key: 'reseller0key', conf: userConf('rita', 'reseller') });
    for (const [session, username] of [
      [ALICE, 'alice'],
      [{ id: 'reseller0session', key: 'reseller0key' }, 'rita'],
    ] as const) {
      const answer = await ask({ role: 'admin', sessionId: session.id, sessionKey: session.key, username });
      expect(answer.status).toBe(403);
      expect(answer.body.url).toBeUndefined();
    }
  });

  it("refuses when what answers on DirectAdmin's port is not DirectAdmin (another local user's program): nothing asked, nothing issued", async () => {
    listenerTrusted = false;
    const before = da.requests.length;
    const answer = await ask(customer(ALICE, 'alice'));
    expect(answer.status).toBe(503);
    expect(answer.body.url).toBeUndefined();
    expect(da.requests.length).toBe(before);
  });

  it("reads the real socket table: the fake DirectAdmin's socket is trusted only when its owner is root", async () => {
    expect(await listenerIsDirectAdmins(new URL(da.url))).toBe(process.getuid?.() === 0);
    expect(await listenerIsDirectAdmins(new URL('http://127.0.0.1:1'))).toBe(false);
  });

  it('refuses input that is no DirectAdmin session without asking DirectAdmin', async () => {
    const before = da.requests.length;
    for (const body of [
      {},
      customer({ id: 'a b', key: ALICE.key }, 'alice'),
      customer(ALICE, 'alice', { role: 'root' }),
      customer(ALICE, 'alice', { domain: 'not a domain' }),
    ]) {
      const answer = await ask(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.url).toBeUndefined();
    }
    expect(da.requests.length).toBe(before);
  });
});

describe("a DirectAdmin reseller's sign-in (the reseller pages, for the signed-in reseller only)", () => {
  const RITA = { id: 'rita00session0id000000000000000000000c', key: 'rita00key00000000000000000000000000000c' };
  const asReseller = (session: { id: string; key: string }, username: string) => ({
    role: 'reseller',
    sessionId: session.id,
    sessionKey: session.key,
    username,
  });
  beforeEach(() => {
    da.sessions.set(RITA.id, { key: RITA.key, conf: userConf('rita', 'reseller') });
  });

  it("signs a reseller's live session into /reseller for that reseller, as DirectAdmin names them", async () => {
    plugin.accounts.saveAccount({
      account: 'ritas1',
      email: null,
      plan: null,
      providerUserId: 'ritas1@da.example',
      providerApiKey: null,
      state: 'active',
      reseller: 'rita',
    });
    plugin.accounts.saveAccount({
      account: 'roses1',
      email: null,
      plan: null,
      providerUserId: 'roses1@da.example',
      providerApiKey: null,
      state: 'active',
      reseller: 'rose',
    });
    const answer = await ask(asReseller(RITA, 'rita'));
    expect(answer.status).toBe(200);
    const browser = createPageClient(plugin.url);
    const launched = await browser.get(answer.body.url as string);
    expect(launched.status).toBe(303);
    expect(launched.headers.get('location')).toBe('/reseller');
    const page = await browser.get('/reseller');
    expect(page.status).toBe(200);
    expect(page.body).toContain('ritas1');
    expect(page.body).not.toContain('roses1');
    // The reseller's session opens neither the admin pages nor a customer's.
    expect((await browser.get('/admin')).status).toBe(401);
    expect((await browser.get('/panel')).status).toBe(401);
  });

  it('refuses a reseller naming another reseller or user: nothing issued', async () => {
    for (const username of ['rose', 'alice', 'admin']) {
      const answer = await ask(asReseller(RITA, username));
      expect(answer.status, username).toBe(403);
      expect(answer.body.url, username).toBeUndefined();
    }
  });

  it("refuses a customer's or an admin's session asking for the reseller pages, even naming a reseller: nothing issued", async () => {
    for (const [session, username] of [
      [ALICE, 'alice'],
      [ALICE, 'rita'],
      [ADMIN, 'admin'],
    ] as const) {
      const answer = await ask(asReseller(session, username));
      expect(answer.status, username).toBe(403);
      expect(answer.body.url, username).toBeUndefined();
    }
  });

  it('gives a reseller asking for the admin pages nothing', async () => {
    const answer = await ask({ ...asReseller(RITA, 'rita'), role: 'admin' });
    expect(answer.status).toBe(403);
    expect(answer.body.url).toBeUndefined();
  });

  it('wpp directadmin-launch --reseller hands the session to the plugin and prints the URL of the reseller pages', async () => {
    const run = await runWpp(['directadmin-launch', '--reseller'], {
      env: { WPP_HOOK_URL: plugin.url },
      ...(process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}),
      stdin: `${RITA.id}\n${RITA.key}\nrita\n\n`,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const launched = await createPageClient(plugin.url).get(run.stdout.trim());
    expect(launched.headers.get('location')).toBe('/reseller');
    const refused = await runWpp(['directadmin-launch', '--reseller'], {
      env: { WPP_HOOK_URL: plugin.url },
      stdin: `${ALICE.id}\n${ALICE.key}\nalice\n\n`,
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(await runWpp(['directadmin-launch', '--reseller', '--admin'], { stdin: '' })).toMatchObject({ stdout: '' });
  });
});

describe('on another panel', () => {
  it('has no DirectAdmin sign-in at all (nothing on port 2222 there is DirectAdmin)', async () => {
    await withPlugin(async (other) => {
      const response = await fetch(`${other.url}/panel-launch/directadmin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(customer(ALICE, 'alice')),
      });
      expect(response.status).toBe(404);
    });
  });
});

describe('wpp directadmin-launch (what the page runs, as the DirectAdmin user)', () => {
  it('hands the session from standard input to the plugin and prints the launch URL, without root', async () => {
    const run = await runWpp(['directadmin-launch', '--account'], {
      env: { WPP_HOOK_URL: plugin.url },
      // As a DirectAdmin user runs it: nobody, when the tests can switch users.
      ...(process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}),
      stdin: `${ALICE.id}\n${ALICE.key}\nalice\n\n`,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/launch\?token=[A-Za-z0-9_.-]+$/);
  });

  it('prints nothing and fails when the plugin refuses', async () => {
    const run = await runWpp(['directadmin-launch', '--admin'], {
      env: { WPP_HOOK_URL: plugin.url },
      stdin: `${ALICE.id}\n${ALICE.key}\nalice\n\n`,
    });
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('DirectAdmin');
  });
});

/**
 * The user's Evolution menu (plugin.conf menu_user, a script DirectAdmin runs as the user) asks the
 * plugin whether to show the entry; the plugin asks DirectAdmin with the session, and DirectAdmin's
 * answer (the session's own user.conf) carries the package item wpp_web_protection.
 */
describe("the user's menu entry follows the package item wpp_web_protection, as DirectAdmin states it", () => {
  async function askMenu(body: Record<string, unknown>) {
    const response = await fetch(`${plugin.url}/panel-launch/directadmin/menu`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { entry?: boolean; code?: string } };
  }
  const session = (value: string | undefined, more: Record<string, string> = {}) =>
    da.sessions.set(ALICE.id, {
      key: ALICE.key,
      conf: userConf('alice', 'user', { ...(value === undefined ? {} : { wpp_web_protection: value }), ...more }),
    });
  const alice = { sessionId: ALICE.id, sessionKey: ALICE.key, username: 'alice' };

  it('hides the entry when the package says OFF, and shows it for ON or a package that never saved the item', async () => {
    for (const [value, entry] of [
      ['OFF', false],
      ['off', false],
      ['ON', true],
      [undefined, true],
    ] as const) {
      session(value);
      const answer = await askMenu(alice);
      expect(answer.status, String(value)).toBe(200);
      expect(answer.body, String(value)).toEqual({ entry });
    }
    // DirectAdmin's own switch of the plugin per package (plugins_deny / plugins_allow): off hides it whatever the item says.
    session('ON', { plugins_deny: 'wpp' });
    expect((await askMenu(alice)).body).toEqual({ entry: false });
    session(undefined, { plugins_allow: 'other' });
    expect((await askMenu(alice)).body).toEqual({ entry: false });
    session(undefined, { plugins_allow: 'other:wpp' });
    expect((await askMenu(alice)).body).toEqual({ entry: true });
    expect(da.requests.at(-1)).toEqual({
      method: 'GET',
      path: '/CMD_API_SHOW_USER_CONFIG',
      cookie: `session=${ALICE.id}; key=${ALICE.key}`,
    });
  });

  it("answers nothing for a forged session or one naming another user (no one learns another user's package)", async () => {
    session('OFF');
    const forged = await askMenu({ ...alice, sessionKey: 'wrong0key000000000000000000000000000000a' });
    expect(forged.status).toBe(401);
    expect(forged.body.entry).toBeUndefined();
    const other = await askMenu({ ...alice, username: 'bob' });
    expect(other.status).toBe(403);
    expect(other.body.entry).toBeUndefined();
    expect((await askMenu({ ...alice, role: 'admin' })).status).toBe(400);
  });

  it('wpp directadmin-launch --menu prints hidden or shown for the session on standard input', async () => {
    for (const [value, printed] of [
      ['OFF', 'hidden'],
      ['ON', 'shown'],
    ] as const) {
      session(value);
      const run = await runWpp(['directadmin-launch', '--menu'], {
        env: { WPP_HOOK_URL: plugin.url },
        ...(process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}),
        stdin: `${ALICE.id}\n${ALICE.key}\nalice\n\n`,
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`${printed}\n`);
    }
  });
});
