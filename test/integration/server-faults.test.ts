/**
 * The plugin's HTTP server under faults: another process holding the database's write lock,
 * an address it cannot listen on, clients that stall or send too much. It stays responsive
 * and says what happened, in JSON.
 */
import { connect } from 'node:net';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runWpp, spawnWpp } from '../helpers/cli.js';
import { callbackTokenFor } from '../../src/core/identity.js';
import { callbackKeyOf, startTestPlugin, testEnv, withPlugin } from '../helpers/plugin.js';
import { startTestSandbox, withSandbox } from '../helpers/sandbox.js';
import { startServer } from '../helpers/server.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

/** Another process's write transaction on the plugin's database, held until released. */
function holdWriteLock(file: string) {
  const other = new Database(file);
  other.exec('BEGIN IMMEDIATE');
  return { release: () => (other.exec('ROLLBACK'), other.close()) };
}

const timed = async <T>(fn: () => Promise<T>) => {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
};

describe('while another process holds the database write lock', () => {
  it('answers hooks and callbacks 503 with Retry-After within seconds, writes nothing, keeps /healthz fast, and works again after', async () => {
    await withPlugin(async (plugin) => {
      const event = { type: 'domain.added', account: 'lock', domain: 'locked.example' };
      expect((await plugin.postEvents({ type: 'domain.added', account: 'lock', domain: 'cb-locked.example' })).status).toBe(202);
      await plugin.idle();
      const token = callbackTokenFor(callbackKeyOf(plugin), 'cb-locked.example');
      await fetch(`${plugin.url}/healthz`);
      const jobsBefore = plugin.jobs.counts();
      const lock = holdWriteLock(plugin.config.databaseFile);
      try {
        // The hook waits about a second for the lock without blocking the server, then says why it failed.
        const hook = timed(() => plugin.postEvents(event));
        const callback = timed(() => fetch(`${plugin.url}/callbacks/website/${token}`, { method: 'POST', body: '{}' }));
        const healthTimes: number[] = [];
        for (let i = 0; i < 5; i++) {
          const health = await timed(() => fetch(`${plugin.url}/healthz`));
          expect(health.value.status).toBe(200);
          healthTimes.push(health.ms);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(Math.max(...healthTimes)).toBeLessThan(1000);
        const [hookAnswer, callbackAnswer] = await Promise.all([hook, callback]);
        expect(hookAnswer.value.status).toBe(503);
        expect(hookAnswer.value.body).toMatchObject({ status: 'error', code: 'UNAVAILABLE' });
        expect(hookAnswer.ms).toBeLessThan(3000);
        expect(callbackAnswer.value.status).toBe(503);
        expect(callbackAnswer.value.headers.get('retry-after')).toBe('1');
        expect(callbackAnswer.ms).toBeLessThan(3000);
      } finally {
        lock.release();
      }
      expect(plugin.jobs.counts()).toEqual(jobsBefore);
      expect((await plugin.postEvents(event)).status).toBe(202);
      await plugin.idle();
      expect(plugin.accounts.getWebsite('locked.example')).not.toBeNull();
    });
  });

  it('finishes a job whose outcome could not be recorded while the lock was held, without waiting for its lease', async () => {
    await withPlugin(async (plugin, sb) => {
      // The provider answers slowly, so the job is still running when the lock is taken.
      await sb.control('POST', '/_sandbox/faults', { mode: 'slow', delayMs: 300, times: 2 });
      await plugin.postEvents({ type: 'account.created', account: 'slowpoke' });
      await waitFor(() => plugin.jobs.counts().running > 0, 5000, 'the job to start');
      const lock = holdWriteLock(plugin.config.databaseFile);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      lock.release();
      await plugin.idle(5000);
      expect(plugin.jobs.counts()).toMatchObject({ pending: 0, running: 0, dead: 0 });
      expect(plugin.accounts.getAccount('slowpoke')?.providerApiKey).toBeTruthy();
    });
  });
});

describe('a statistics sync while another process holds the write lock', () => {
  it('waits for it and stores every read', async () => {
    await withPlugin(async (plugin, sb) => {
      await plugin.postEvents(['s1', 's2', 's3'].map((name) => ({ type: 'domain.added', account: 'syncer', domain: `${name}.example` })));
      await plugin.idle();
      for (const name of ['s1', 's2', 's3']) await sb.control('POST', `/_sandbox/websites/${name}.example/traffic`, { hits: 100 });
      // Reads answer slowly, so the lock is taken while they are in flight and released before the sync ends.
      await sb.control('POST', '/_sandbox/faults', { mode: 'slow', delayMs: 400, times: 3 });
      const sync = plugin.syncStatistics();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const lock = holdWriteLock(plugin.config.databaseFile);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      lock.release();
      expect(await sync).toMatchObject({ read: 3, failed: 0, stopped: false });
      const today = new Date();
      const periodStart = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1);
      expect(plugin.stats.accountUsage('syncer', periodStart).map((row) => row.hits)).toEqual([100, 100, 100]);
      expect(plugin.stats.recentRuns('sync-stats')[0]?.status).toBe('ok');
    });
  });
});

describe('listening', () => {
  it("names the address and the cause when the port is taken, or the address is not this machine's", async () => {
    const taken = await startServer();
    const port = taken.port;
    const sandbox = await startTestSandbox();
    const dataDir = createTempDir('wpp-plugin-');
    try {
      await expect(startTestPlugin(sandbox, { dataDir, env: { WPP_PORT: String(port) } })).rejects.toThrow(
        `The plugin cannot listen on 127.0.0.1:${port}: the address is already in use (EADDRINUSE)`,
      );
      const served = await runWpp(['serve'], { env: testEnv(dataDir, sandbox, { WPP_HOST: '192.0.2.1', WPP_PORT: '8080' }) });
      expect(served.code).toBe(1);
      expect(served.stderr).toContain('The plugin cannot listen on 192.0.2.1:8080: the address is not one of this machine (EADDRNOTAVAIL)');
      expect(served.stderr).not.toContain('Cannot read properties');
    } finally {
      await taken.close();
      await sandbox.close();
      removeTempDir(dataDir);
      removeTempDir(sandbox.dataDir);
    }
  });

  it('a second wpp serve on one data folder says another one runs there; after a crash, the next starts at once', async () => {
    await withSandbox(async (sandbox) => {
      const dataDir = createTempDir('wpp-plugin-');
      const env = testEnv(dataDir, sandbox, { WPP_PORT: '0' });
      const first = spawnWpp(['serve'], { env });
      let second: ReturnType<typeof spawnWpp> | undefined;
      let third: ReturnType<typeof spawnWpp> | undefined;
      try {
        await first.waitForStdout('Plugin listening on');
        second = spawnWpp(['serve'], { env });
        const refused = await second.exited(15_000);
        expect(refused?.code).toBe(1);
        expect(refused?.stderr).toContain(`Another wpp serve already runs on the data folder ${dataDir} (host `);
        expect(refused?.stderr).toContain(`pid ${first.pid}`);
        first.kill('SIGKILL');
        await first.exited(10_000);
        third = spawnWpp(['serve'], { env });
        await third.waitForStdout('Plugin listening on');
        third.kill('SIGTERM');
        expect((await third.exited(20_000))?.code).toBe(0);
      } finally {
        for (const child of [first, second, third]) child?.kill('SIGKILL');
        removeTempDir(dataDir);
      }
    });
  });

  it('the sandbox does too', async () => {
    await withSandbox(async (first) => {
      await expect(startTestSandbox({ port: first.port })).rejects.toThrow(
        `The provider sandbox cannot listen on 127.0.0.1:${first.port}: the address is already in use (EADDRINUSE)`,
      );
    });
  });
});

/** Sends raw bytes and returns what comes back before the server closes the connection. */
function rawExchange(url: string, request: string, timeoutMs: number): Promise<{ text: string; ms: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('close', () => resolve({ text, ms: performance.now() - started }));
    socket.on('error', reject);
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    });
  });
}

describe('clients that stall or send too much', () => {
  it('a body that never completes gets a JSON 408 when the request timeout runs out', async () => {
    const sandbox = await startTestSandbox();
    const plugin = await startTestPlugin(sandbox, { serverTimeouts: { requestMs: 1000 } });
    try {
      const { text, ms } = await rawExchange(
        plugin.url,
        'POST /hooks/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"type":',
        10_000,
      );
      expect(text).toMatch(/^HTTP\/1.1 408 /);
      expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 'error', code: 'REQUEST_TIMEOUT' });
      expect(ms).toBeLessThan(4000);
    } finally {
      await plugin.close();
      await sandbox.close();
      removeTempDir(plugin.dataDir);
      removeTempDir(sandbox.dataDir);
    }
  });

  it('a 20,000-character token gets a JSON 431, from the plugin and from the sandbox', async () => {
    await withPlugin(async (plugin, sb) => {
      const token = 'a'.repeat(20_000);
      const fromPlugin = await fetch(`${plugin.url}/callbacks/website/${token}`, { method: 'POST' });
      expect(fromPlugin.status).toBe(431);
      expect(await fromPlugin.json()).toMatchObject({ status: 'error', code: 'HEADERS_TOO_LARGE' });
      const fromSandbox = await fetch(`${sb.url}/v1.0/website/${token}.example`, { headers: { authorization: `Bearer ${sb.partnerKey}` } });
      expect(fromSandbox.status).toBe(431);
      expect(await fromSandbox.json()).toMatchObject({ status: 'error', code: 'headers_too_large' });
    });
  });
});
