/**
 * wpp against the real Virtualmin GPL (the testbed named by WPP_VIRTUALMIN_TESTBED), as root:
 * `wpp install virtualmin` registers the hook and the plugin in the real panel, then the real
 * `virtualmin` CLI creates, extends, disables (sub-servers and aliases too), enables, renames (the
 * domain, then the Unix user) and deletes virtual servers, and after each step the plugin's state
 * and the provider sandbox's are checked. Everything made is
 * removed afterwards, even when a step fails; a Virtualmin this suite installed is removed too.
 *
 * What `wpp install` writes outside the panel (the launcher, /etc/wpp, the systemd units, the
 * service user) goes into a staged root whose /usr/share/webmin and /etc/webmin are links to the
 * real ones: the module and Virtualmin's settings land in the real panel, the rest in the stage,
 * with a fake systemctl (no service is started). /usr/local/lib/wpp and /etc/wpp, where the
 * launcher that post_command runs and its settings live, are links into the stage while the
 * suite runs; it refuses to run where a real wpp has them.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWpp } from '../helpers/cli.js';
import { fakeSystemctl } from '../helpers/fake-tools.js';
import { startTestPlugin, testEnv, type TestPlugin } from '../helpers/plugin.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';
import {
  domainId,
  domainNames,
  installVirtualmin,
  removeVirtualmin,
  run,
  snapshot,
  testbedFolder,
  virtualmin,
  virtualminInstalled,
  webminPage,
} from './virtualmin-testbed.js';

const REPO = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
const VM_CONFIG = '/etc/webmin/virtual-server/config';
const WEBMIN_ACL = '/etc/webmin/webmin.acl';
const MODULE_DIR = '/usr/share/webmin/wpp';
const LINKS = ['/usr/local/lib/wpp', '/etc/wpp'];

/** Unique names per run: the sandbox resolves every name but .invalid ones (src/sandbox/resolver.ts). */
const run36 = Date.now().toString(36).slice(-6);
const USER = `wpp${run36}`;
const OTHER_USER = `wppo${run36}`;
/** The top-level server's Unix user after `modify-domain --user`. */
const NEW_USER = `wppn${run36}`;
const TOP = `wpp-${run36}.example.com`;
const SUB = `shop.wpp-${run36}.example.com`;
const ALIAS = `wpp-${run36}-alias.example.net`;
const RENAMED = `wpp-${run36}-renamed.example.com`;
const OTHER = `wpp-${run36}-other.example.org`;
/** A reseller's Webmin user (Virtualmin Pro's resellers; the GPL testbed gets one by the ACL Pro gives it). */
const RESELLER = `wppr${run36}`;
const OURS = (name: string) => name.includes(run36);

let plugin: (TestPlugin & { dataDir: string }) | undefined;
let sandbox: TestSandbox | undefined;
let stage: string | undefined;
let installedPanel = false;
let builtDist = false;
const madeLinks: string[] = [];
const saved = new Map<string, string | null>();
let ready = false;

const password = () => randomBytes(12).toString('base64url');

/** What a step found, printed so the suite's output reads as a log of the panel's real behaviour. */
const seen = (line: string) => process.stdout.write(`  seen: ${line}\n`);

async function seenAccount(name = USER): Promise<void> {
  await plugin!.idle(30_000);
  const account = plugin!.accounts.getAccount(name);
  const websites = await Promise.all(
    plugin!.accounts.websitesOf(name).map(async (w) => `${w.domain} ${w.state}/${(await providerWebsite(w.domain))?.requested_status ?? 'none'}`),
  );
  seen(`account ${name}: ${account?.state ?? 'unknown'}; websites (plugin/provider): ${websites.join(', ')}`);
}

async function providerWebsite(domain: string): Promise<{ user_id: string; requested_status: string } | null> {
  if (!sandbox) throw new Error('no sandbox');
  const response = await fetch(`${sandbox.url}/v1.0/website?domain=${domain}`, { headers: { authorization: `Bearer ${sandbox.partnerKey}` } });
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(`GET website ${domain}: ${response.status}`);
  return (await response.json()) as { user_id: string; requested_status: string };
}

/** The plugin's view and the provider's of one domain, once the queued events are worked off. */
async function stateOf(domain: string) {
  await plugin!.idle(30_000);
  const website = plugin!.accounts.getWebsite(domain);
  const remote = await providerWebsite(domain);
  seen(`${domain}: plugin ${website ? `${website.state} (account ${website.account})` : 'unknown'}, provider ${remote?.requested_status ?? 'none'}`);
  return {
    plugin: website && { account: website.account, state: website.state, desired: website.desiredStatus },
    provider: remote && { requested: remote.requested_status },
  };
}

/** The links Virtualmin itself computes for a server's menu (feature_links: its own and the plugins', cached as Virtualmin caches them). */
async function serverLinks(id: string): Promise<string[]> {
  const links = await run(
    '/usr/bin/perl',
    ['-e', // Webmin finds the module from the script's path, as for its own command-line scripts.
      '$0 = "/usr/share/webmin/virtual-server/links.pl"; require "./virtual-server-lib.pl"; my $d = &get_domain($ARGV[0]); print map { "$_->{mod}/$_->{page}\\n" } &feature_links($d);', id],
    { cwd: '/usr/share/webmin/virtual-server', env: { WEBMIN_CONFIG: '/etc/webmin', WEBMIN_VAR: '/var/webmin', PERLLIB: '/usr/share/webmin', REMOTE_USER: 'root', BASE_REMOTE_USER: 'root' } },
  );
  if (links.code !== 0) throw new Error(`feature_links of ${id}: ${links.stderr}`);
  return links.stdout.split('\n').filter(Boolean);
}

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('the Virtualmin suite runs as root: it installs into the real Virtualmin (sudo npm run test:panels)');
  const testbed = testbedFolder();
  for (const path of LINKS) {
    if (existsSync(path) || isLink(path)) {
      throw new Error(`${path} is there: this machine has a wpp installation, which this suite would have to replace; run it on a test machine`);
    }
  }
  if (!virtualminInstalled()) {
    await installVirtualmin(testbed);
    installedPanel = true;
  }
  for (const path of [VM_CONFIG, WEBMIN_ACL]) saved.set(path, snapshot(path));
  if (existsSync(MODULE_DIR)) throw new Error(`${MODULE_DIR} is there already: remove the old wpp module first`);

  // The launcher runs bin/wpp.js, which runs the compiled CLI.
  builtDist = !existsSync(join(REPO, 'dist'));
  const build = await run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: REPO,
    timeoutMs: 300_000,
  });
  if (build.code !== 0) throw new Error(`npm run build failed: ${build.stdout}${build.stderr}`);

  sandbox = await startTestSandbox({ certDelaySeconds: 0 });
  plugin = await startTestPlugin(sandbox);
  stage = createTempDir('wpp-vm-stage-');
  fakeSystemctl(stage);
  mkdirSync(join(stage, 'usr/share'), { recursive: true });
  mkdirSync(join(stage, 'etc'), { recursive: true });
  symlinkSync('/usr/share/webmin', join(stage, 'usr/share/webmin'));
  symlinkSync('/etc/webmin', join(stage, 'etc/webmin'));
  mkdirSync(join(stage, 'etc/wpp'), { recursive: true, mode: 0o750 });
  mkdirSync(join(stage, 'usr/local/lib/wpp'), { recursive: true });
  // The settings the hooks and pages run with: the plugin under test, its provider, its address.
  const settings = testEnv(plugin.dataDir, sandbox, { WPP_PANEL: 'virtualmin', WPP_PORT: new URL(plugin.url).port, WPP_PUBLIC_URL: plugin.url });
  writeFileSync(
    join(stage, 'etc/wpp/env'),
    Object.entries(settings)
      .map(([key, value]) => `${key}='${value}'\n`)
      .join(''),
    { mode: 0o640 },
  );
  for (const path of LINKS) {
    symlinkSync(join(stage, path), path);
    madeLinks.push(path);
  }
  const install = await runWpp(['install', 'virtualmin', '--root', stage]);
  if (install.code !== 0) throw new Error(`wpp install virtualmin failed: ${install.stdout}${install.stderr}`);
  ready = true;
}, 600_000);

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

afterAll(async () => {
  const problems: string[] = [];
  const attempt = async (what: string, step: () => Promise<unknown> | unknown) => {
    try {
      await step();
    } catch (error) {
      problems.push(`${what}: ${(error as Error).message}`);
    }
  };
  if (virtualminInstalled()) {
    await attempt('deleting the virtual servers made', async () => {
      // Top-level servers first: their sub-servers and aliases go with them.
      for (const name of (await domainNames()).filter(OURS).sort((a, b) => a.split('.').length - b.split('.').length)) {
        if ((await domainNames()).includes(name)) await virtualmin('delete-domain', '--domain', name);
      }
    });
  }
  if (stage) await attempt('wpp uninstall virtualmin', async () => runWpp(['uninstall', 'virtualmin', '--root', stage!]));
  await attempt('removing the owner ACL', () => rmSync(`/etc/webmin/virtual-server/${OTHER_USER}.acl`, { force: true }));
  await attempt("removing the reseller's ACL", () => rmSync(`/etc/webmin/virtual-server/${RESELLER}.acl`, { force: true }));
  for (const [path, content] of saved) {
    await attempt(`restoring ${path}`, () => {
      if (content !== null && snapshot(path) !== content) writeFileSync(path, content);
    });
  }
  await attempt(`removing ${MODULE_DIR}`, () => rmSync(MODULE_DIR, { recursive: true, force: true }));
  for (const path of madeLinks) await attempt(`removing ${path}`, () => unlinkSync(path));
  await attempt('stopping the plugin', async () => plugin?.close());
  await attempt('stopping the sandbox', async () => sandbox?.close());
  for (const dir of [plugin?.dataDir, sandbox?.dataDir, stage]) if (dir) removeTempDir(dir);
  if (builtDist) await attempt('removing dist/', () => rmSync(join(REPO, 'dist'), { recursive: true, force: true }));
  if (installedPanel) await attempt('removing the Virtualmin this suite installed', () => removeVirtualmin());
  if (problems.length > 0) throw new Error(`cleaning up: ${problems.join('; ')}`);
}, 300_000);

describe('wpp in the real Virtualmin', () => {
  it('is installed: post_command runs the launcher, wpp is a plugin, and wpp doctor finds it registered', async () => {
    expect(ready).toBe(true);
    expect(snapshot(VM_CONFIG)).toMatch(/^post_command=\/usr\/local\/lib\/wpp\/wpp hook virtualmin post$/m);
    expect(snapshot(VM_CONFIG)).toMatch(/^plugins=(.* )?wpp( |$)/m);
    const settings = testEnv(plugin!.dataDir, sandbox!, { WPP_PORT: new URL(plugin!.url).port, WPP_PUBLIC_URL: plugin!.url });
    const doctor = await runWpp(['doctor', '--root', stage!], { env: settings });
    expect(doctor.stdout).toMatch(/^ok +panel +virtualmin: files in place, hooks and menu entries registered$/m);
  });

  it('create-domain of a top-level server: its Unix user becomes the account, its domain a protected website', async () => {
    // --wpp: the Web Protection feature (virtual_feature.pl). The command line gives a server only the features it names.
    await virtualmin('create-domain', '--domain', TOP, '--user', USER, '--pass', password(), '--desc', 'wpp suite', '--unix', '--dir', '--wpp', '--email', 'owner@example.com');
    expect(await stateOf(TOP)).toEqual({ plugin: { account: USER, state: 'active', desired: 'online' }, provider: { requested: 'online' } });
    expect(plugin!.accounts.getAccount(USER)).toMatchObject({ account: USER, email: 'owner@example.com', state: 'active' });
  });

  it('create-domain --parent: a sub-server is a website of the same account', async () => {
    await virtualmin('create-domain', '--domain', SUB, '--parent', TOP, '--desc', 'wpp suite sub-server', '--dir');
    expect(await stateOf(SUB)).toEqual({ plugin: { account: USER, state: 'active', desired: 'online' }, provider: { requested: 'online' } });
  });

  it('create-domain --alias: an alias is a website of the same account', async () => {
    await virtualmin('create-domain', '--domain', ALIAS, '--alias', TOP, '--desc', 'wpp suite alias', '--dir');
    expect(await stateOf(ALIAS)).toEqual({ plugin: { account: USER, state: 'active', desired: 'online' }, provider: { requested: 'online' } });
    expect(plugin!.accounts.websitesOf(USER).map((w) => w.domain).sort()).toEqual([ALIAS, SUB, TOP].sort());
    // One provider user holds all three.
    const owners = await Promise.all([TOP, SUB, ALIAS].map(async (domain) => (await providerWebsite(domain))?.user_id));
    expect(new Set(owners).size).toBe(1);
    expect(owners[0]).toBeTruthy();
  });

  it("the server's menu links to wpp, whose page signs in only a Webmin user Virtualmin lets edit that server", async () => {
    const [topId, subId] = [await domainId(TOP), await domainId(SUB)];
    // The links Virtualmin itself computes for the server (feature_always_links, shown where the user may use the module).
    expect(await serverLinks(subId)).toContain(`wpp/launch.cgi?dom=${subId}`);

    const root = await webminPage('launch.cgi', 'root', `dom=${subId}`);
    expect(root.status).toBe('302 Found');
    expect(root.location).toMatch(new RegExp(`^${plugin!.url}/launch\\?token=`));
    const signIn = await fetch(root.location!, { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toMatch(/^\/panel/);
    expect(signIn.headers.get('set-cookie')).toBeTruthy();

    const admin = await webminPage('index.cgi', 'root');
    expect(admin.status).toBe('302 Found');
    expect((await fetch(admin.location!, { redirect: 'manual' })).headers.get('location')).toMatch(/^\/admin/);

    // Another customer's Webmin user, as Virtualmin sets one up: its own server only, no configuration.
    await virtualmin('create-domain', '--domain', OTHER, '--user', OTHER_USER, '--pass', password(), '--desc', 'wpp suite other', '--unix', '--dir', '--wpp');
    const otherId = await domainId(OTHER);
    writeFileSync(WEBMIN_ACL, `${snapshot(WEBMIN_ACL)!.trimEnd()}\n${OTHER_USER}: virtual-server wpp\n`);
    writeFileSync(`/etc/webmin/virtual-server/${OTHER_USER}.acl`, `domains=${otherId}\nnoconfig=1\nedit=1\ncreate=0\n`, { mode: 0o600 });
    const own = await webminPage('launch.cgi', OTHER_USER, `dom=${otherId}`);
    expect(own.status).toBe('302 Found');
    const foreign = await webminPage('launch.cgi', OTHER_USER, `dom=${topId}`);
    expect(foreign.status).toBe('403 Forbidden');
    expect(foreign.location).toBeUndefined();
    const notAdmin = await webminPage('index.cgi', OTHER_USER);
    expect(notAdmin.status).toBe('403 Forbidden');
    expect(notAdmin.location).toBeUndefined();
  });

  it("a reseller finds Web Protection in their menu and gets the reseller pages for themselves, whatever the request names", async () => {
    // Virtualmin GPL has no create-reseller (a Pro command): the reseller gets the Virtualmin ACL Pro gives one
    // (reseller=1, no module configuration), which is what reseller_admin() reads.
    writeFileSync(WEBMIN_ACL, `${snapshot(WEBMIN_ACL)!.trimEnd()}\n${RESELLER}: virtual-server wpp\n`);
    writeFileSync(`/etc/webmin/virtual-server/${RESELLER}.acl`, 'reseller=1\nnoconfig=1\ndomains=\nedit=1\ncreate=1\n', { mode: 0o600 });
    // The global links Virtualmin computes for the signed-in user (the left-hand menu): the reseller's hold Web Protection, a domain owner's not.
    const menu = async (user: string) =>
      (
        await run(
          '/usr/bin/perl',
          ['-e', '$0 = "/usr/share/webmin/virtual-server/links.pl"; require "./virtual-server-lib.pl"; print map { "$_->{url} $_->{title}\\n" } &get_all_global_links();'],
          { cwd: '/usr/share/webmin/virtual-server', env: { WEBMIN_CONFIG: '/etc/webmin', WEBMIN_VAR: '/var/webmin', PERLLIB: '/usr/share/webmin', REMOTE_USER: user, BASE_REMOTE_USER: user } },
        )
      ).stdout.split('\n');
    expect(await menu(RESELLER)).toContain('/wpp/index.cgi Web Protection');
    expect(await menu(OTHER_USER)).not.toContain('/wpp/index.cgi Web Protection');

    const page = await webminPage('index.cgi', RESELLER, `reseller=${OTHER_USER}&role=admin&admin=root`);
    expect(page.status).toBe('302 Found');
    const signIn = await fetch(page.location!, { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe('/reseller');
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    const reseller = await fetch(`${plugin!.url}/reseller`, { headers: { cookie }, redirect: 'manual' });
    expect(reseller.status).toBe(200);
    expect(await reseller.text()).toContain(RESELLER);
    expect((await fetch(`${plugin!.url}/admin`, { headers: { cookie }, redirect: 'manual' })).status).toBe(401);

    // A domain owner asking index.cgi for the reseller role is refused; their server's page gives their own account only.
    const owner = await webminPage('index.cgi', OTHER_USER, `role=reseller&reseller=${RESELLER}`);
    expect(owner.status).toBe('403 Forbidden');
    expect(owner.location).toBeUndefined();
  });

  it('disable-domain of the top-level server suspends the account: its websites are paused at the provider', async () => {
    await virtualmin('disable-domain', '--domain', TOP);
    await plugin!.idle(30_000);
    await seenAccount();
    expect(plugin!.accounts.getAccount(USER)?.state).toBe('suspended');
    for (const domain of [TOP, SUB, ALIAS]) expect((await providerWebsite(domain))?.requested_status, domain).toBe('paused');
  });

  it('enable-domain unsuspends it: the websites are online again', async () => {
    await virtualmin('enable-domain', '--domain', TOP);
    await plugin!.idle(30_000);
    await seenAccount();
    expect(plugin!.accounts.getAccount(USER)?.state).toBe('active');
    for (const domain of [TOP, SUB, ALIAS]) expect((await providerWebsite(domain))?.requested_status, domain).toBe('online');
  });

  it('disable-feature --wpp: the server no longer includes web protection, its websites are paused for it and no menu of its account links to wpp; enable-feature --wpp protects them again', async () => {
    // Virtualmin runs the change command for a feature turned off or on (a MODIFY_DOMAIN with the record's wpp=0 / wpp=1).
    const ids = await Promise.all([TOP, SUB, ALIAS].map((domain) => domainId(domain)));
    // Each server's menu has the link (the sub-server's is cached by now: the menu step computed it).
    for (const id of ids) expect(await serverLinks(id), id).toContain(`wpp/launch.cgi?dom=${id}`);
    await virtualmin('disable-feature', '--domain', TOP, '--wpp');
    await seenAccount();
    expect(plugin!.accounts.getAccount(USER)?.state).toBe('active');
    for (const domain of [TOP, SUB, ALIAS]) {
      expect(plugin!.accounts.getWebsite(domain)?.pausedBy, domain).toBe('package');
      expect((await providerWebsite(domain))?.requested_status, domain).toBe('paused');
    }
    // No menu entry for an account whose package lacks protection: not on the server, its sub-server or its alias.
    for (const id of ids) expect((await serverLinks(id)).filter((link) => link.startsWith('wpp/')), id).toEqual([]);
    await virtualmin('enable-feature', '--domain', TOP, '--wpp');
    await seenAccount();
    for (const domain of [TOP, SUB, ALIAS]) {
      expect(await stateOf(domain), domain).toEqual({ plugin: { account: USER, state: 'active', desired: 'online' }, provider: { requested: 'online' } });
    }
    for (const id of ids) expect(await serverLinks(id), id).toContain(`wpp/launch.cgi?dom=${id}`);
    // Off and on again back to back: on a fast machine both records are saved within one second (one
    // VIRTUALSERVER_LASTSAVE), and the second change must not be taken for a replay of the first.
    await virtualmin('disable-feature', '--domain', TOP, '--wpp');
    await virtualmin('enable-feature', '--domain', TOP, '--wpp');
    await seenAccount();
    for (const domain of [TOP, SUB, ALIAS]) {
      expect(await stateOf(domain), domain).toEqual({ plugin: { account: USER, state: 'active', desired: 'online' }, provider: { requested: 'online' } });
    }
  });

  it('modify-domain --newdomain: the new name is protected and the old one removed', async () => {
    await virtualmin('modify-domain', '--domain', TOP, '--newdomain', RENAMED);
    expect(await stateOf(RENAMED)).toEqual({ plugin: { account: USER, state: 'active', desired: 'online' }, provider: { requested: 'online' } });
    expect((await stateOf(TOP)).plugin).toMatchObject({ account: USER, state: 'removed' });
    expect((await providerWebsite(TOP))?.requested_status).toBe('paused');
    // Virtualmin keeps the sub-server's own name.
    expect((await stateOf(SUB)).plugin).toMatchObject({ state: 'active' });
  });

  it('disable-domain of a sub-server or alias that has nothing Virtualmin can disable: Virtualmin keeps it enabled, and so does wpp', async () => {
    // The testbed's servers have no web feature (no web server): Virtualmin disables nothing, records the server as enabled
    // (VIRTUALSERVER_DISABLED empty) and then refuses to enable it. A website paused here would never be resumed.
    for (const domain of [SUB, ALIAS]) {
      await virtualmin('disable-domain', '--domain', domain);
      expect(await stateOf(domain)).toEqual({ plugin: { account: USER, state: 'active', desired: 'online' }, provider: { requested: 'online' } });
      await expect(virtualmin('enable-domain', '--domain', domain)).rejects.toThrow(/is not disabled/);
    }
    expect(plugin!.accounts.getAccount(USER)?.state).toBe('active');
  });

  it('disable-domain --subservers / enable-domain --subservers: the account is suspended and resumed, no website is left paused on its own', async () => {
    await virtualmin('disable-domain', '--domain', RENAMED, '--subservers');
    await seenAccount();
    expect(plugin!.accounts.getAccount(USER)?.state).toBe('suspended');
    for (const domain of [RENAMED, SUB, ALIAS]) expect((await providerWebsite(domain))?.requested_status, domain).toBe('paused');
    // Virtualmin enables again only the sub-servers it recorded as disabled: here none, so they get no call of their own.
    await virtualmin('enable-domain', '--domain', RENAMED, '--subservers');
    await seenAccount();
    expect(plugin!.accounts.getAccount(USER)?.state).toBe('active');
    for (const domain of [RENAMED, SUB, ALIAS]) {
      expect(await stateOf(domain), domain).toEqual({
        plugin: { account: USER, state: 'active', desired: 'online' },
        provider: { requested: 'online' },
      });
    }
  });

  it('modify-domain --user: the account takes the new Unix user’s name, with its websites and the same provider user', async () => {
    const owner = (await providerWebsite(RENAMED))?.user_id;
    expect(owner).toBeTruthy();
    await virtualmin('modify-domain', '--domain', RENAMED, '--user', NEW_USER);
    // Virtualmin gives the sub-server and the alias the new user too, without a change-command call of their own.
    expect((await virtualmin('list-domains', '--user', NEW_USER, '--name-only')).split('\n').filter(OURS).sort()).toEqual(
      [ALIAS, RENAMED, SUB].sort(),
    );
    await seenAccount(NEW_USER);
    expect(plugin!.accounts.getAccount(NEW_USER)).toMatchObject({ account: NEW_USER, email: 'owner@example.com', state: 'active' });
    expect(plugin!.accounts.getAccount(USER)).toBeNull();
    expect(plugin!.accounts.websitesOf(USER)).toEqual([]);
    for (const domain of [RENAMED, SUB, ALIAS]) {
      expect(await stateOf(domain), domain).toEqual({
        plugin: { account: NEW_USER, state: 'active', desired: 'online' },
        provider: { requested: 'online' },
      });
      expect((await providerWebsite(domain))?.user_id, domain).toBe(owner);
    }
  });

  it('delete-domain of the top-level server (with its sub-server and alias) deletes the account and removes every website', async () => {
    await virtualmin('delete-domain', '--domain', RENAMED);
    await plugin!.idle(30_000);
    await seenAccount(NEW_USER);
    expect(plugin!.accounts.getAccount(NEW_USER)?.state).toBe('deleted');
    for (const domain of [RENAMED, SUB, ALIAS]) {
      expect(plugin!.accounts.getWebsite(domain)?.state, domain).toBe('removed');
      expect((await providerWebsite(domain))?.requested_status, domain).toBe('paused');
    }
    expect((await domainNames()).filter((name) => name === RENAMED || name === SUB || name === ALIAS)).toEqual([]);
  });
});
