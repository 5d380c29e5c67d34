/**
 * What startPlugin hands its callers (the `wpp` commands, the benches): the things they do
 * and the addresses they print, never a repository, the database or the provider client. A
 * caller that wants to look at the data opens the database file itself (test/helpers/plugin.ts
 * does, as an operator's sqlite3 would), so the running plugin's surface need not grow with
 * what tests inspect.
 */
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startPlugin } from '../../src/main.js';
import { testConfig, withDemoPlugin } from '../helpers/plugin.js';
import { createTempDir, removeTempDir, startTestSandbox } from '../helpers/sandbox.js';

/** Every member of RunningPlugin (src/wiring/types.ts), each something a `wpp` command or a bench calls or prints. */
const MEMBERS = [
  'adminResume',
  'close',
  'drain',
  'enforceLimits',
  'importPanel',
  'jobCounts',
  'lastPanelImportAt',
  'readDueStatistics',
  'resolveKeptPleskEvents',
  'sandbox',
  'sendMailDigests',
  'serverId',
  'switchMonitoring',
  'syncStatistics',
  'url',
];

/** A member that is no address or command: a repository, the database, a client. */
const handles = (plugin: object) =>
  Object.entries(plugin)
    .filter(([, value]) => value !== null && typeof value === 'object' && !('partnerKey' in value))
    .map(([name]) => name);

describe('the running plugin', () => {
  it('a one-shot command gets its commands and its address, no repository or database handle', async () => {
    const sandbox = await startTestSandbox();
    const dataDir = createTempDir('wpp-running-');
    try {
      const plugin = await startPlugin({ config: testConfig(dataDir, sandbox), role: 'command', logger: pino({ level: 'silent' }) });
      try {
        expect(Object.keys(plugin).sort()).toEqual(MEMBERS);
        expect(handles(plugin)).toEqual([]);
        expect(plugin.sandbox).toBeUndefined();
        expect(plugin.jobCounts()).toEqual({ pending: 0, running: 0, done: 0, dead: 0 });
        expect(plugin.lastPanelImportAt()).toBeNull();
      } finally {
        await plugin.close();
      }
      // What a caller inspects it reads from the file, on a connection of its own.
      const db = new Database(testConfig(dataDir, sandbox).databaseFile, { readonly: true });
      try {
        expect(db.prepare('SELECT COUNT(*) AS n FROM jobs').get()).toEqual({ n: 0 });
      } finally {
        db.close();
      }
    } finally {
      await sandbox.close();
      removeTempDir(dataDir);
      removeTempDir(sandbox.dataDir);
    }
  });

  it('a data folder keeps one server id for all its processes and starts; another data folder gets its own', async () => {
    const sandbox = await startTestSandbox();
    const dataDirs = [createTempDir('wpp-identity-'), createTempDir('wpp-identity-')];
    const start = (dataDir: string) =>
      startPlugin({ config: testConfig(dataDir, sandbox), role: 'command', logger: pino({ level: 'silent' }) });
    try {
      const [first, second] = await Promise.all([start(dataDirs[0]!), start(dataDirs[0]!)]);
      const other = await start(dataDirs[1]!);
      await Promise.all([first.close(), second.close(), other.close()]);
      const again = await start(dataDirs[0]!);
      await again.close();
      expect(first.serverId).toMatch(/^srv-[0-9a-f-]{36}$/);
      expect([second.serverId, again.serverId]).toEqual([first.serverId, first.serverId]);
      expect(other.serverId).toMatch(/^srv-/);
      expect(other.serverId).not.toBe(first.serverId);
    } finally {
      await sandbox.close();
      for (const dataDir of dataDirs) removeTempDir(dataDir);
      removeTempDir(sandbox.dataDir);
    }
  });

  it('a serve without a configured provider gives the embedded sandbox as the address and partner key it prints, nothing more', async () => {
    await withDemoPlugin(async (plugin) => {
      expect(Object.keys(plugin.sandbox ?? {}).sort()).toEqual(['partnerKey', 'url']);
      const answer = await fetch(`${plugin.sandbox?.url}/v1.0/user`, {
        headers: { authorization: `Bearer ${plugin.sandbox?.partnerKey}` },
      });
      expect(answer.status).toBe(200);
    });
  });
});
