/**
 * The checks of `wpp doctor`, each on what it is given (the environment, the clock, the
 * provider client's options): configuration, database, provider, public URL, service, clock
 * and disk. `standardChecks` lists them; a new check is one more entry there.
 */
import { existsSync, statSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig, type Config, type Env, type MachineFacts } from '../config.js';
import { newestMigration } from '../db/migrate.js';
import { processIsAlive, readLockHolder } from '../db/statistics.repo.js';
import { describeError } from '../errors.js';
import { describeHolder, SERVE_LOCK } from '../locks.js';
import { paths } from '../paths.js';
import { providerTarget } from '../wiring/provider.js';
import { createProviderClient, isProviderError, type ProviderClientOptions } from '../provider/index.js';
import { fail, ok, SkipCheck, warn, type CheckResult, type DoctorCheck } from './doctor.js';
import { probeDatabase } from '../db/database-probe.js';
import { LAYOUT } from '../install/layout.js';
import { currentInstallSource } from '../install/source.js';
import { createToolRunner, type ToolRunner } from '../install/tools.js';
import { verifyInstallations } from '../install/verify.js';
import { checkResellers } from './resellers.js';
import { checkPackages } from './packages-check.js';
import { createPluginSettings } from '../core/plugin-settings.js';
import { createSettingsRepo } from '../db/settings.repo.js';

/** The admin's grace period as the plugin reads it (its override, else the default). */
const graceDaysIn = (db: Database.Database) => createPluginSettings(createSettingsRepo(db), { autoProtect: true }).packageGraceDays();
import { checkMail } from './mail-check.js';
import { openDoctorBudget } from './provider-budget.js';

export interface DoctorDeps {
  env: Env;
  /** Facts the configuration's defaults come from. Default: this machine's. */
  machine?: MachineFacts;
  /** This machine's clock (the clock check compares it with the provider's). Default Date.now. */
  now?: () => number;
  /** A provider answer slower than this is a warning. Default 2000 ms. */
  slowMs?: number;
  /** Provider client tuning. Default: one attempt of at most 4 s, inside the check's 5 s. */
  providerOptions?: Pick<ProviderClientOptions, 'timeoutMs' | 'retry'>;
  /** Where `wpp install` put things: '/' on a server, a staged folder in tests. */
  root?: string;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export function formatBytes(bytes: number): string {
  if (bytes >= GiB) return `${(bytes / GiB).toFixed(1)} GiB`;
  if (bytes >= MiB) return `${(bytes / MiB).toFixed(1)} MiB`;
  return `${Math.round(bytes / 1024)} KiB`;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** The configuration, read once for every check that needs it; a check skips when it does not load. */
function configReader(deps: DoctorDeps) {
  let loaded: { config: Config } | { error: unknown } | undefined;
  const load = () => {
    if (!loaded) {
      try {
        loaded = { config: loadConfig(deps.env, deps.machine) };
      } catch (error) {
        loaded = { error };
      }
    }
    return loaded;
  };
  return {
    load,
    need(): Config {
      const result = load();
      if ('error' in result) throw new SkipCheck('needs a valid configuration (see the configuration line)');
      return result.config;
    },
  };
}

const providerName = (config: Config) =>
  'embedded' in config.provider ? `embedded sandbox (port ${config.provider.sandboxPort})` : config.provider.url;

export function checkConfiguration(load: () => { config: Config } | { error: unknown }): CheckResult {
  const result = load();
  // The message lists every bad variable by name, never a value.
  if ('error' in result) return fail(describeError(result.error).replace(/^CONFIG_INVALID: /, ''));
  const { config } = result;
  const summary = `provider ${providerName(config)}, data ${config.dataDir}`;
  const warnings = [...config.warnings];
  if (config.metrics.tokenRequired && config.metrics.token === undefined)
    warnings.push(
      'WPP_METRICS_TOKEN is not set: an installed plugin answers GET /metrics to nobody without it; set one (32 random characters) in /etc/wpp/env',
    );
  return warnings.length > 0 ? warn(`${summary}; ${warnings.join('; ')}`) : ok(summary);
}

export async function checkDatabase(config: Config, signal: AbortSignal): Promise<CheckResult> {
  const file = config.databaseFile;
  const marker = `${file}.created`;
  const size = statSync(file, { throwIfNoEntry: false })?.size;
  if (!size) {
    if (existsSync(marker))
      return fail(`${file} is ${size === undefined ? 'missing' : 'empty'} but ${marker} says it existed: restore it from a backup`);
    return fail(`no database at ${file} yet: \`wpp serve\` creates it when it first starts`);
  }
  const wal = statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
  const probe = await probeDatabase(file, signal);
  const newest = newestMigration(paths.migrations);
  const where = `${file} ${formatBytes(size)}${wal > 0 ? ` (+ ${formatBytes(wal)} WAL)` : ''}`;
  if (probe.quickCheck.join() !== 'ok')
    return fail(`${where} is damaged (quick_check: ${probe.quickCheck.join('; ')}): restore it from a backup`);
  if (probe.version === null) return fail(`${where} has no schema: not the plugin's database, or it was copied without its -wal`);
  if (probe.version > newest)
    return fail(`${where} is at migration ${probe.version}, newer than this version of wpp (${newest}): upgrade wpp`);
  if (probe.version < newest) {
    return warn(`${where} is at migration ${probe.version}, this version has ${newest}: restart \`wpp serve\` to apply the rest`);
  }
  return ok(`${where}, migration ${probe.version} (current), quick_check ok`);
}

/**
 * One keyed call to the provider. Its token comes from the server's request budget (urgent:
 * an operator waits), so the doctor beside a busy server sends nothing the server's pacer does
 * not count; the time it waited for the token is not the provider's slowness.
 */
export async function checkProvider(config: Config, deps: DoctorDeps, signal?: AbortSignal): Promise<CheckResult> {
  if ('embedded' in config.provider && !existsSync(join(config.dataDir, 'sandbox', 'sandbox.sqlite'))) {
    return fail(`the embedded sandbox has never run in ${join(config.dataDir, 'sandbox')}: start \`wpp serve\`, or set WPP_PROVIDER_URL`);
  }
  const target = providerTarget(config);
  const paced = openDoctorBudget(config);
  const client = createProviderClient({
    baseUrl: target.url,
    apiKey: target.apiKey,
    timeoutMs: 4000,
    retry: { limit: 0 },
    userAgent: 'wpp-doctor',
    ...deps.providerOptions,
    ...(paced ? { budget: paced.budget, priority: 'urgent' as const } : {}),
    ...(signal ? { signal } : {}),
  });
  const calledAt = performance.now();
  let budget: string | undefined;
  // A cheap call that needs the key: reading one (made-up) user. Not found means the key was accepted.
  try {
    await client.getUser(`wpp-doctor@${config.accountDomain}`);
  } catch (error) {
    if (!isProviderError(error, 'PROVIDER_NOT_FOUND')) {
      if (isProviderError(error, 'PROVIDER_AUTH')) {
        return fail(`${target.url} refused the key (${error.status ?? 'no status'}): check WPP_PROVIDER_API_KEY`);
      }
      if (isProviderError(error, 'PROVIDER_RATE_LIMITED')) return warn(`${target.url} is rate limiting this key: ${describeError(error)}`);
      if (isProviderError(error, 'PROVIDER_UNAVAILABLE')) return fail(`${target.url} is down or unreachable: ${describeError(error)}`);
      return fail(`${target.url} answered unexpectedly: ${describeError(error)}`);
    }
  } finally {
    budget = paced?.describe();
    paced?.close();
  }
  const took = performance.now() - (paced?.grantedAt() ?? calledAt);
  const unpaced = paced?.unpaced();
  const detail = `${target.url} accepted the key in ${Math.round(took)} ms${unpaced ? ` (sent unpaced: the request budget could not be used: ${unpaced})` : ''}`;
  const budgetLine = budget ? `; ${budget}` : '';
  return took > (deps.slowMs ?? 2000)
    ? warn(`${detail}: slow (over ${deps.slowMs ?? 2000} ms)${budgetLine}`)
    : ok(`${detail}${budgetLine}`);
}

/** GET <base>/healthz; the plugin answers {"status":"ok"}. */
async function healthz(base: string, signal: AbortSignal): Promise<{ ms: number } | { error: string }> {
  const started = performance.now();
  try {
    const response = await fetch(`${base}/healthz`, { signal, redirect: 'manual' });
    const body = (await response.json().catch(() => null)) as { status?: unknown } | null;
    if (response.status !== 200 || body?.status !== 'ok') return { error: `answered ${response.status}, not the plugin's health answer` };
    return { ms: Math.round(performance.now() - started) };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { error: cause?.code ?? cause?.message ?? describeError(error) };
  }
}

/** The plugin's own address, as a client on this machine reaches it (a wildcard listen address is reached on loopback). */
function localUrl(config: Config): string {
  const host =
    config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '[::1]' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}

const LOCAL_HOST = /^(localhost|127\.[0-9.]+|\[::1\]|0\.0\.0\.0)$/i;

export async function checkPublicUrl(config: Config, signal: AbortSignal): Promise<CheckResult> {
  const base = config.publicUrl ?? localUrl(config);
  const answer = await healthz(base, signal);
  const from = 'checked from this machine only';
  if ('error' in answer) {
    return fail(
      `GET ${base}/healthz failed (${answer.error}; ${from}): the provider's status callbacks cannot arrive; is \`wpp serve\` running?`,
    );
  }
  // A provider on this machine (the sandbox, a test double) reaches a local address; one elsewhere does not.
  const providerElsewhere = !('embedded' in config.provider) && !LOCAL_HOST.test(new URL(config.provider.url).hostname);
  if (providerElsewhere && (config.publicUrl === undefined || LOCAL_HOST.test(new URL(base).hostname))) {
    return warn(
      `${base} answers, but ${config.publicUrl === undefined ? 'WPP_PUBLIC_URL is unset' : 'it is a local address'}: ` +
        'a provider elsewhere cannot send callbacks to it; set WPP_PUBLIC_URL to the address the provider reaches',
    );
  }
  return ok(`${base}/healthz answered in ${answer.ms} ms (${from}; the provider must reach it too)`);
}

export async function checkService(config: Config, signal: AbortSignal, now: () => number): Promise<CheckResult> {
  if (!existsSync(config.databaseFile)) return fail(`not running: no database in ${config.dataDir} yet`);
  let holder;
  const db = new Database(config.databaseFile, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 1000');
    holder = readLockHolder(db, SERVE_LOCK);
  } finally {
    db.close();
  }
  const start = 'start it (`systemctl start wpp`, or `wpp serve`)';
  if (!holder) return fail(`no \`wpp serve\` runs on ${config.dataDir}: ${start}`);
  if (holder.expiresAt < now()) {
    return fail(
      `no \`wpp serve\` runs on ${config.dataDir} (the last one, ${describeHolder(holder)}, stopped renewing its lock): ${start}`,
    );
  }
  if (holder.host === hostname() && holder.pid !== null && !processIsAlive(holder.pid)) {
    return fail(`\`wpp serve\` (${describeHolder(holder)}) has ended without releasing its lock: ${start}`);
  }
  const base = localUrl(config);
  if (config.port === 0) return warn(`\`wpp serve\` runs (${describeHolder(holder)}); WPP_PORT is 0, so its address is not known here`);
  const answer = await healthz(base, signal);
  if ('error' in answer) return fail(`\`wpp serve\` runs (${describeHolder(holder)}) but ${base}/healthz does not answer: ${answer.error}`);
  return ok(`\`wpp serve\` runs (${describeHolder(holder)}), ${base}/healthz answered in ${answer.ms} ms`);
}

/** Launch tokens live a minute and sessions are timed: a clock off by minutes refuses sign-ins. */
export const CLOCK_WARN_MS = 30_000;
export const CLOCK_FAIL_MS = 300_000;

export async function checkClock(config: Config, signal: AbortSignal, now: () => number): Promise<CheckResult> {
  const url = 'embedded' in config.provider ? localUrl({ ...config, port: config.provider.sandboxPort }) : config.provider.url;
  const sent = now();
  let date: string | null;
  try {
    // Any answer carries a Date header; this one needs no key.
    const response = await fetch(`${url}/v1.0/`, { signal, redirect: 'manual' });
    await response.body?.cancel();
    date = response.headers.get('date');
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return warn(`not compared: ${url} did not answer (${cause?.code ?? describeError(error)})`);
  }
  const received = now();
  const theirs = date === null ? Number.NaN : Date.parse(date);
  if (Number.isNaN(theirs)) return warn(`not compared: ${url} sent no usable Date header`);
  // The header has whole seconds: up to a second of the difference is its rounding.
  const offset = theirs - (sent + received) / 2;
  const behind = offset > 0 ? 'behind' : 'ahead of';
  if (Math.abs(offset) < 2000) return ok("in step with the provider's clock (within the Date header's one-second resolution)");
  const detail = `this machine is ${seconds(Math.abs(offset))} ${behind} the provider's clock`;
  if (Math.abs(offset) > CLOCK_FAIL_MS)
    return fail(`${detail}: launch links and sessions fail; set up time synchronisation (chrony, systemd-timesyncd)`);
  if (Math.abs(offset) > CLOCK_WARN_MS) return warn(`${detail}: check time synchronisation (chrony, systemd-timesyncd)`);
  return ok(detail);
}

/** Free space thresholds: SQLite needs room for its WAL and for a statistics sync's writes. */
export function diskStatus(free: number, total: number): CheckResult['status'] {
  if (free < 100 * MiB) return 'fail';
  if (free < GiB || free < total * 0.1) return 'warn';
  return 'ok';
}

export async function checkDisk(config: Config): Promise<CheckResult> {
  // The data folder, or the nearest folder above it that exists (before the first start).
  let dir = config.dataDir;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  const fs = await statfs(dir);
  const free = fs.bavail * fs.bsize;
  const total = fs.blocks * fs.bsize;
  const detail = `${formatBytes(free)} free of ${formatBytes(total)} (${Math.round((free / total) * 100)}%) on ${dir}`;
  const status = diskStatus(free, total);
  if (status === 'fail') return fail(`${detail}: the database cannot grow; free space now`);
  if (status === 'warn') return warn(`${detail}: free space soon`);
  return ok(detail);
}

/** Every check of `wpp doctor`, in the order printed. */
export function standardChecks(deps: DoctorDeps): DoctorCheck[] {
  const config = configReader(deps);
  const now = deps.now ?? Date.now;
  return [
    { name: 'configuration', run: async () => checkConfiguration(config.load) },
    { name: 'database', run: (signal) => checkDatabase(config.need(), signal) },
    { name: 'provider', run: (signal) => checkProvider(config.need(), deps, signal) },
    { name: 'public-url', run: (signal) => checkPublicUrl(config.need(), signal) },
    { name: 'service', run: (signal) => checkService(config.need(), signal, now) },
    { name: 'clock', run: (signal) => checkClock(config.need(), signal, now) },
    { name: 'disk', run: () => checkDisk(config.need()) },
    { name: 'mail', run: () => checkMail(config.need()) },
    { name: 'panel', run: () => checkInstallation(createToolRunner(deps.root ?? '/')) },
    { name: 'resellers', run: async () => checkResellers(config.need()) },
    { name: 'packages', run: async () => checkPackages(config.need(), now, graceDaysIn) },
  ];
}

/** Hooks, menu entries, pages and the service that `wpp install <panel>` put in place: still there, still registered? */
export async function checkInstallation(tools: ToolRunner): Promise<CheckResult> {
  const states = await verifyInstallations(tools, currentInstallSource());
  if (states.length === 0) {
    throw new SkipCheck(`not installed with \`wpp install\` (no record in ${LAYOUT.recordDir}); hooks added by hand are not checked`);
  }
  const broken = states.filter((state) => state.problems.length > 0);
  if (broken.length === 0) return ok(`${states.map((s) => s.panel).join(', ')}: files in place, hooks and menu entries registered`);
  return fail(
    broken
      .map((s) => `${s.panel}: ${s.problems.slice(0, 3).join('; ')}${s.problems.length > 3 ? ` (+${s.problems.length - 3} more)` : ''}`)
      .join(' | ') + ` — run wpp install ${broken[0]?.panel} to put them back`,
  );
}
