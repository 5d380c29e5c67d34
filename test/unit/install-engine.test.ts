import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { InstallPlan, RegistrationArtefact } from '../../src/install/artefacts.js';
import { install, uninstall, type EngineOptions } from '../../src/install/engine.js';
import { readInstallRecord } from '../../src/install/install-record.js';
import { createToolRunner } from '../../src/install/tools.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

/** A registration kept in memory: what a panel would hold, and how often it was asked to register. */
function memoryRegistration(panelState: Set<string>, key: string, fingerprint = 'v1'): RegistrationArtefact & { registered: number } {
  return {
    kind: 'registration',
    key,
    describe: `test ${key}`,
    fingerprint,
    registered: 0,
    async register() {
      this.registered++;
      panelState.add(key);
      return { ids: [`id-${key}`], undo: [{ tool: '/usr/bin/true', args: [key] }] };
    },
    async isInPlace() {
      return panelState.has(key);
    },
  };
}

let root: string;
let lines: string[];
const options = (extra: Partial<EngineOptions> = {}): EngineOptions => ({
  tools: createToolRunner(root),
  dryRun: false,
  print: (line) => lines.push(line),
  version: '1.0.0',
  now: () => new Date('2026-11-23T10:00:00Z'),
  ...extra,
});

beforeEach(() => {
  root = createTempDir();
  lines = [];
});
afterEach(() => removeTempDir(root));

const plan = (panel: string, artefacts: InstallPlan['artefacts']): InstallPlan => ({ panel, artefacts, nextSteps: [] });

describe('the install engine', () => {
  test('a second install changes nothing; a registration dropped by the panel is made again', async () => {
    const state = new Set<string>();
    const hooks = memoryRegistration(state, 'hooks');
    const steps = plan('test', [
      { kind: 'directory', path: '/var/lib/wpp', mode: 0o700, data: true },
      { kind: 'file', path: '/usr/local/lib/wpp/hook.sh', mode: 0o755, content: '#!/bin/sh\necho hi\n' },
      hooks,
    ]);
    expect((await install(steps, options())).changes).toBe(3);
    expect(statSync(join(root, 'usr/local/lib/wpp/hook.sh')).mode & 0o777).toBe(0o755);
    expect((await install(steps, options())).changes).toBe(0);
    expect(hooks.registered).toBe(1);

    state.clear(); // a panel update dropped the hooks
    expect((await install(steps, options())).changes).toBe(1);
    expect(hooks.registered).toBe(2);
    expect(lines).toContain('re-registered  test hooks');
  });

  test('a file someone changed is put back, and its mode too', async () => {
    const steps = plan('test', [{ kind: 'file', path: '/etc/x/script.sh', mode: 0o755, content: 'ours\n' }]);
    await install(steps, options());
    writeFileSync(join(root, 'etc/x/script.sh'), 'edited\n', { mode: 0o777 });
    expect((await install(steps, options())).changes).toBe(1);
    expect(readFileSync(join(root, 'etc/x/script.sh'), 'utf8')).toBe('ours\n');
    expect(statSync(join(root, 'etc/x/script.sh')).mode & 0o777).toBe(0o755);
  });

  test('refuses CR line endings before writing anything', async () => {
    const steps = plan('test', [{ kind: 'file', path: '/etc/x/a.sh', mode: 0o755, content: '#!/bin/sh\r\necho\r\n' }]);
    await expect(install(steps, options())).rejects.toThrow(/LF line endings/);
    expect(existsSync(join(root, 'etc/x/a.sh'))).toBe(false);
  });

  test('an upgrade removes what the new plan no longer has', async () => {
    const state = new Set<string>();
    await install(
      plan('test', [
        { kind: 'file', path: '/opt/a', mode: 0o644, content: 'a\n' },
        { kind: 'file', path: '/opt/old', mode: 0o644, content: 'old\n' },
        memoryRegistration(state, 'old-hook'),
      ]),
      options(),
    );
    await install(plan('test', [{ kind: 'file', path: '/opt/a', mode: 0o644, content: 'a\n' }]), options());
    expect(existsSync(join(root, 'opt/old'))).toBe(false);
    expect(existsSync(join(root, 'opt/a'))).toBe(true);
    expect((await readInstallRecord(createToolRunner(root), 'test'))?.registrations).toEqual([]);
  });

  test("the record keeps each registration's key, description and fingerprint with the ids and undo calls registering left", async () => {
    const state = new Set<string>();
    await install(plan('test', [memoryRegistration(state, 'hooks', 'v7')]), options());
    expect((await readInstallRecord(createToolRunner(root), 'test'))?.registrations).toEqual([
      { key: 'hooks', describe: 'test hooks', fingerprint: 'v7', ids: ['id-hooks'], undo: [{ tool: '/usr/bin/true', args: ['hooks'] }] },
    ]);
  });

  test('a dry run changes nothing and writes no record', async () => {
    const state = new Set<string>();
    const hooks = memoryRegistration(state, 'hooks');
    const outcome = await install(
      plan('test', [{ kind: 'file', path: '/opt/a', mode: 0o644, content: 'a\n' }, hooks]),
      options({ dryRun: true }),
    );
    expect(outcome.changes).toBe(2);
    expect(hooks.registered).toBe(0);
    expect(existsSync(join(root, 'opt'))).toBe(false);
    expect(existsSync(join(root, 'var'))).toBe(false);
  });

  test('uninstall keeps the data and kept files unless purging, and what another panel still uses', async () => {
    const shared = { kind: 'file', path: '/usr/local/lib/wpp/wpp', mode: 0o755, content: 'launcher\n' } as const;
    const data = { kind: 'directory', path: '/var/lib/wpp', mode: 0o700, data: true } as const;
    const env = { kind: 'file', path: '/etc/wpp/env', mode: 0o600, content: 'X=1\n', keep: true } as const;
    await install(plan('one', [data, env, shared, { kind: 'file', path: '/opt/one', mode: 0o644, content: '1\n' }]), options());
    await install(plan('two', [data, shared]), options());
    writeFileSync(join(root, 'var/lib/wpp/plugin.sqlite'), 'db');

    await uninstall('one', { ...options(), purge: false });
    expect(existsSync(join(root, 'opt/one'))).toBe(false);
    expect(existsSync(join(root, 'usr/local/lib/wpp/wpp'))).toBe(true); // two still runs it
    expect(existsSync(join(root, 'etc/wpp/env'))).toBe(true);
    expect(existsSync(join(root, 'var/lib/wpp/plugin.sqlite'))).toBe(true);

    await uninstall('two', { ...options(), purge: true });
    expect(existsSync(join(root, 'usr/local/lib/wpp/wpp'))).toBe(false);
    expect(existsSync(join(root, 'var/lib/wpp'))).toBe(false);
  });

  test('a damaged record is an error, never taken for "not installed"', async () => {
    mkdirSync(join(root, 'var/lib/wpp/install'), { recursive: true });
    writeFileSync(join(root, 'var/lib/wpp/install/test.json'), '{"panel":"test"}');
    await expect(uninstall('test', { ...options(), purge: false })).rejects.toThrow(/not a wpp install record/);
  });
});
