/**
 * `wpp doctor` against a real serving plugin and the real sandbox: healthy, the provider down
 * or refusing the key, the service stopped, a clock off, a database behind its migrations;
 * and the runner's promise that one hanging check neither stops the others nor the command.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { diskStatus, standardChecks, type DoctorDeps } from '../../src/doctor/checks.js';
import { doctorExitCode, formatReports, runDoctor, type CheckReport } from '../../src/doctor/doctor.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runWpp } from '../helpers/cli.js';
import { fakeCpanelTools } from '../helpers/fake-cpanel.js';
import { decoyCalls, decoyPath, fakeSystemctl } from '../helpers/fake-tools.js';
import { startTestPlugin, testEnv } from '../helpers/plugin.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { startTestSmtp } from '../helpers/smtp.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const MACHINE = { hostname: 'test-host', primaryIp: undefined };

type Serving = Awaited<ReturnType<typeof startTestPlugin>>;

/** A sandbox and a serving plugin; `env` is what `wpp doctor` would be run with on that install. */
async function withInstall(fn: (install: { plugin: Serving; sandbox: TestSandbox; env: Record<string, string> }) => Promise<void>) {
  const sandbox = await startTestSandbox({ certDelaySeconds: 0 });
  const plugin = await startTestPlugin(sandbox);
  const env = testEnv(plugin.dataDir, sandbox, { WPP_PORT: new URL(plugin.url).port, WPP_PUBLIC_URL: plugin.url });
  try {
    await fn({ plugin, sandbox, env });
  } finally {
    await plugin.close();
    await sandbox.close();
    removeTempDir(plugin.dataDir);
    removeTempDir(sandbox.dataDir);
  }
}

const doctor = (env: Record<string, string>, deps: Partial<DoctorDeps> = {}) =>
  runDoctor(standardChecks({ env, machine: MACHINE, ...deps }));
const byName = (reports: CheckReport[]) => Object.fromEntries(reports.map((report) => [report.name, report]));
const statuses = (reports: CheckReport[]) => Object.fromEntries(reports.map((report) => [report.name, report.status]));

describe('wpp doctor', () => {
  it('on a cPanel install: the panel line is ok; with a hook dropped and the provider down, both FAIL and the exit code is 1', async () => {
    await withInstall(async ({ env, sandbox }) => {
      const root = createTempDir();
      try {
        fakeCpanelTools(root);
        fakeSystemctl(root);
        const path = `${decoyPath(root, ['manage_hooks', 'systemctl'])}:${process.env.PATH ?? ''}`;
        const install = await runWpp(['install', 'cpanel', '--root', root], { env: { PATH: path } });
        expect(install.code).toBe(0);

        const healthy = await runWpp(['doctor', '--root', root], { env: { ...env, PATH: path } });
        expect(healthy.stdout).toMatch(/^ok +panel +cpanel: files in place, hooks and menu entries registered$/m);
        expect(healthy.code).toBe(0);

        // A panel update dropped the hooks, and the provider is down.
        writeFileSync(join(root, '.cpanel-hooks.json'), '{}');
        await sandbox.control('POST', '/_sandbox/faults', { mode: 'down' });
        const broken = await runWpp(['doctor', '--root', root], { env: { ...env, PATH: path } });
        expect(broken.stdout).toMatch(/^FAIL +panel +cpanel: cpanel hooks: .*not registered.*run wpp install cpanel to put them back$/m);
        expect(broken.stdout).toMatch(/^FAIL +provider +/m);
        expect(broken.stdout).toMatch(/^ok +database/m);
        expect(broken.code).toBe(1);
        expect(decoyCalls(root)).toEqual([]);
      } finally {
        removeTempDir(root);
      }
    });
  }, 120_000);

  it('on a healthy install: one ok line per check, exit code 0', async () => {
    await withInstall(async ({ env, sandbox }) => {
      const run = await runWpp(['doctor'], { env });
      expect(run.stderr).toBe('');
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines.map((line) => line.split(/\s+/).slice(0, 2).join(' '))).toEqual([
        'ok configuration',
        'ok database',
        'ok provider',
        'ok public-url',
        'ok service',
        'ok clock',
        'ok disk',
        'skip mail',
        'skip panel',
        'ok resellers',
        'ok packages',
      ]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`provider ${sandbox.url}`);
      expect(run.stdout).toMatch(/database +\S+plugin\.sqlite [\d.]+ [KMG]iB.*migration \d+ \(current\), quick_check ok/);
      expect(run.stdout).toMatch(/service +`wpp serve` runs \(host \S+, pid \d+, since/);
      // The partner key and the panel secret never show.
      expect(run.stdout).not.toContain(sandbox.partnerKey);
      expect(run.stdout).not.toContain(env.WPP_PANEL_SECRET);

      const json = await runWpp(['doctor', '--json'], { env });
      expect(json.code).toBe(0);
      const parsed = JSON.parse(json.stdout) as { ok: boolean; checks: CheckReport[] };
      expect(parsed.ok).toBe(true);
      expect(parsed.checks.map((check) => check.name)).toEqual([
        'configuration',
        'database',
        'provider',
        'public-url',
        'service',
        'clock',
        'disk',
        'mail',
        'panel',
        'resellers',
        'packages',
      ]);
    });
  }, 60_000);

  it('with the provider down: a FAIL line naming the provider, exit code 1; the other checks still run', async () => {
    await withInstall(async ({ env, sandbox }) => {
      await sandbox.control('POST', '/_sandbox/faults', { mode: 'down' });
      const run = await runWpp(['doctor'], { env });
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(new RegExp(`^FAIL +provider +${sandbox.url.replaceAll('.', '\\.')} is down or unreachable: .*503`, 'm'));
      expect(run.stdout).toMatch(/^ok +service /m);
      expect(run.stdout.trimEnd().split('\n')).toHaveLength(11);

      // Stopped altogether: refused connections.
      await sandbox.close();
      const reports = await doctor(env);
      // The details say why, should a check other than the provider's ever fail here.
      expect(statuses(reports), formatReports(reports)).toMatchObject({ provider: 'fail', clock: 'warn', service: 'ok', database: 'ok' });
      expect(byName(await doctor(env)).provider?.detail).toMatch(/is down or unreachable: .*ECONNREFUSED/);
    });
  }, 60_000);

  it('with a key the provider refuses: FAIL saying so, without the key', async () => {
    await withInstall(async ({ env }) => {
      const wrongKey = 'wrong-partner-key-0123456789';
      const reports = await doctor({ ...env, WPP_PROVIDER_API_KEY: wrongKey });
      expect(byName(reports).provider).toMatchObject({
        status: 'fail',
        detail: expect.stringMatching(/refused the key \(401\): check WPP_PROVIDER_API_KEY/),
      });
      expect(doctorExitCode(reports)).toBe(1);
      expect(formatReports(reports)).not.toContain(wrongKey);
    });
  }, 60_000);

  it('with WPP_SMTP_URL: ok when the SMTP server takes the login, FAIL with a wrong password, never showing it', async () => {
    const smtp = await startTestSmtp();
    try {
      await withInstall(async ({ env }) => {
        const mail = { WPP_SMTP_URL: smtp.url, WPP_MAIL_FROM: 'protection@host.example' };
        const good = byName(await doctor({ ...env, ...mail })).mail;
        expect(good?.status).toBe('ok');
        expect(good?.detail).toBe(
          `smtp://wpp-mailer:[redacted]@127.0.0.1:${smtp.port} answered and took the login; mails from protection@host.example`,
        );
        const wrong = 'Wrong-Pa55word-never-shown';
        const bad = await runWpp(['doctor'], {
          env: { ...env, ...mail, WPP_SMTP_URL: smtp.url.replace(encodeURIComponent(smtp.password), wrong) },
        });
        expect(bad.stdout).toMatch(/^FAIL +mail +smtp:\/\/wpp-mailer:\[redacted\]@127\.0\.0\.1:\d+: .*no mail can be sent$/m);
        expect(bad.stdout + bad.stderr).not.toContain(wrong);
        expect(bad.stdout + bad.stderr).not.toContain(smtp.password);
        expect(bad.code).toBe(1);
      });
    } finally {
      await smtp.close();
    }
  }, 60_000);

  it('warns about a slow provider', async () => {
    await withInstall(async ({ env, sandbox }) => {
      await sandbox.control('POST', '/_sandbox/faults', { mode: 'slow', delayMs: 300 });
      const provider = byName(await doctor(env, { slowMs: 100 })).provider;
      expect(provider).toMatchObject({ status: 'warn', detail: expect.stringMatching(/accepted the key in \d+ ms: slow/) });
    });
  }, 60_000);

  it('with the service stopped: FAIL for the service and for the public URL', async () => {
    await withInstall(async ({ env, plugin }) => {
      await plugin.close();
      const reports = await doctor(env);
      expect(statuses(reports)).toMatchObject({ service: 'fail', 'public-url': 'fail', provider: 'ok', database: 'ok' });
      expect(byName(reports).service?.detail).toMatch(/no `wpp serve` runs on .*: start it/);
      expect(byName(reports)['public-url']?.detail).toMatch(/healthz failed \(ECONNREFUSED; checked from this machine only\)/);
      expect(doctorExitCode(reports)).toBe(1);
    });
  }, 60_000);

  it("compares this machine's clock with the provider's Date header", async () => {
    await withInstall(async ({ env }) => {
      const off = (ms: number) => () => Date.now() + ms;
      expect(byName(await doctor(env)).clock?.status).toBe('ok');
      expect(byName(await doctor(env, { now: off(60_000) })).clock).toMatchObject({
        status: 'warn',
        detail: expect.stringMatching(/this machine is (59|60|61) s ahead of the provider's clock/),
      });
      expect(byName(await doctor(env, { now: off(-600_000) })).clock).toMatchObject({
        status: 'fail',
        detail: expect.stringMatching(/behind the provider's clock: launch links and sessions fail/),
      });
    });
  }, 60_000);

  it('warns about a database behind its migrations (an upgrade not yet started)', async () => {
    await withInstall(async ({ env, plugin }) => {
      await plugin.close();
      const db = new Database(plugin.config.databaseFile);
      const newest = (db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number }).v;
      db.prepare('DELETE FROM schema_migrations WHERE version = ?').run(newest);
      // The one before it (numbers may leave a gap while parts of a release are merged).
      const previous = (db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number }).v;
      db.close();
      expect(byName(await doctor(env)).database).toMatchObject({
        status: 'warn',
        detail: expect.stringContaining(`at migration ${previous}, this version has ${newest}: restart`),
      });
    });
  }, 60_000);

  it('on an installed plugin (WPP_PANEL set) without WPP_METRICS_TOKEN: warns on the configuration line, saying to set it', async () => {
    const base = { WPP_PROVIDER_URL: 'http://127.0.0.1:9', WPP_PROVIDER_API_KEY: 'k', WPP_DATA_DIR: '/nonexistent/wpp' };
    const missing = byName(await doctor({ ...base, WPP_PANEL: 'systemd' })).configuration;
    expect(missing).toMatchObject({ status: 'warn', detail: expect.stringContaining('WPP_METRICS_TOKEN is not set') });
    const set = byName(await doctor({ ...base, WPP_PANEL: 'cpanel', WPP_METRICS_TOKEN: 'metrics-token-0123456789abcdef' })).configuration;
    expect(set?.status).toBe('ok');
    expect(set?.detail).not.toContain('metrics-token');
    // Not installed (a development checkout): loopback may read /metrics, nothing to report.
    expect(byName(await doctor(base)).configuration?.status).toBe('ok');
  });

  it('skips what needs the configuration when it does not load, and says which variable is wrong', async () => {
    const reports = await doctor({ WPP_PORT: 'eighty', WPP_PROVIDER_URL: 'http://127.0.0.1:9', WPP_PROVIDER_API_KEY: 'k' });
    expect(reports[0]).toMatchObject({ name: 'configuration', status: 'fail', detail: expect.stringContaining('WPP_PORT') });
    expect(reports.slice(1).every((report) => report.status === 'skip')).toBe(true);
    expect(doctorExitCode(reports)).toBe(1);
  });
});

describe('runDoctor', () => {
  it('gives each check its own deadline, runs them all, and turns a throw into a FAIL line', async () => {
    const started = Date.now();
    const reports = await runDoctor(
      [
        { name: 'hangs', run: () => new Promise(() => undefined) },
        { name: 'throws', run: () => Promise.reject(new Error('boom')) },
        { name: 'fine', run: async () => ({ status: 'ok', detail: 'all good' }) },
        { name: 'careful', run: async () => ({ status: 'warn', detail: 'look at this' }) },
      ],
      { timeoutMs: 200 },
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(reports.map((report) => [report.name, report.status, report.detail])).toEqual([
      ['hangs', 'fail', 'no result within 0.2 s'],
      ['throws', 'fail', 'Error: boom'],
      ['fine', 'ok', 'all good'],
      ['careful', 'warn', 'look at this'],
    ]);
    expect(formatReports(reports).split('\n')).toEqual([
      'FAIL  hangs    no result within 0.2 s',
      'FAIL  throws   Error: boom',
      'ok    fine     all good',
      'warn  careful  look at this',
    ]);
    expect(doctorExitCode(reports)).toBe(1);
    expect(doctorExitCode(reports.filter((report) => report.status !== 'fail'))).toBe(0);
  });
});

describe('diskStatus', () => {
  const MiB = 1024 * 1024;
  const GiB = 1024 * MiB;
  it('fails under 100 MiB free, warns under 1 GiB or 10%, else ok', () => {
    expect(diskStatus(99 * MiB, 500 * GiB)).toBe('fail');
    expect(diskStatus(100 * MiB, 200 * MiB)).toBe('warn');
    expect(diskStatus(1023 * MiB, 2 * GiB)).toBe('warn');
    expect(diskStatus(9 * GiB, 100 * GiB)).toBe('warn');
    expect(diskStatus(10 * GiB, 100 * GiB)).toBe('ok');
    expect(diskStatus(2 * GiB, 4 * GiB)).toBe('ok');
  });
});
