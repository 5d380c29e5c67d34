/**
 * `wpp install plesk` / `wpp uninstall plesk` as an administrator runs them, with the real CLI
 * against a stateful fake /usr/sbin/plesk and a fake systemctl in a temporary root, decoys of
 * both first on PATH (no tool is looked up on PATH).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PLESK_EVENTS } from '../../src/panel/adapters/plesk.js';
import { runWpp } from '../helpers/cli.js';
import { FAKE_PLESK_STATE, fakePlesk, pleskHandlers } from '../helpers/fake-plesk.js';
import { decoyCalls, decoyPath, fakeSystemctl, filesBelow, toolCalls } from '../helpers/fake-tools.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const PLESK = '/usr/sbin/plesk';
const LAUNCHER = '/usr/local/lib/wpp/wpp';
const PLIB = '/usr/local/psa/admin/plib/modules/wpp';
const HTDOCS = '/usr/local/psa/admin/htdocs/modules/wpp';
const SBIN = '/usr/local/psa/admin/sbin/modules/wpp';
const FOREIGN = { id: 1, event: 'domain_create', command: '/usr/local/bin/other-vendor-dns.sh' };
const FAKE_TOOLS = [PLESK, '/usr/bin/systemctl'];
/** The event_handler calls that only read: the handlers, and the events Plesk offers. */
const READS = ['--list', '--list-events'];

let root: string;
let path: string;

const wpp = (args: string[]) => runWpp(args, { env: { PATH: `${path}:${process.env.PATH ?? ''}` } });
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const pleskCalls = (verb: string) => toolCalls(root).filter((call) => call[0] === PLESK && call.slice(1, 4).join(' ').includes(verb));
const ourHandlers = () => pleskHandlers(root).filter((h) => h[4]?.startsWith(LAUNCHER));

function setUp() {
  root = createTempDir('wpp-install-plesk-');
  fakePlesk(root, [FOREIGN]);
  fakeSystemctl(root);
  path = decoyPath(root, ['plesk', 'systemctl']);
}

describe('wpp install plesk', () => {
  beforeAll(setUp);
  afterAll(() => removeTempDir(root));

  it('writes the extension, registers it, and creates one handler per event with our command, priority 50, as root', async () => {
    const run = await wpp(['install', 'plesk', '--root', root]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/wpp is installed for plesk/);

    const files = filesBelow(root, FAKE_PLESK_STATE);
    expect(Object.fromEntries([...files].filter(([file]) => file.startsWith('/usr/local/psa')))).toEqual({
      [`${PLIB}/meta.xml`]: 0o644,
      [`${PLIB}/controllers/IndexController.php`]: 0o644,
      [`${PLIB}/hooks/CustomButtons.php`]: 0o644,
      [`${PLIB}/hooks/Permissions.php`]: 0o644,
      [`${HTDOCS}/index.php`]: 0o644,
      [`${SBIN}/launch-url`]: 0o755,
    });
    for (const file of files.keys()) if (!file.startsWith('/.')) expect(read(file), file).not.toContain('\r');
    expect(read(`${PLIB}/meta.xml`)).toMatch(/<id>wpp<\/id>[\s\S]*<version>\d+\.\d+\.\d+[^<]*<\/version>/);
    expect(read(`${PLIB}/controllers/IndexController.php`)).toContain('pm_Session::getClient()');
    expect(read(`${SBIN}/launch-url`)).toContain(`exec '${LAUNCHER}' launch-url --panel plesk --account "$login" "$@"`);
    expect(read(`${SBIN}/launch-url`)).not.toMatch(/\{\{/);

    // The extension is registered after its files are in place, the handlers after it.
    const calls = toolCalls(root).filter((call) => call[0] === PLESK);
    expect(calls.find((call) => call[2] === 'extension' && call[3] !== '--list')).toEqual([PLESK, 'bin', 'extension', '--register', 'wpp']);
    expect(pleskCalls('event_handler --create').map((call) => call.slice(1))).toEqual(
      PLESK_EVENTS.map((event) => [
        'bin',
        'event_handler',
        '--create',
        '-command',
        `${LAUNCHER} hook plesk ${event}`,
        '-priority',
        '50',
        '-user',
        'root',
        '-event',
        event,
      ]),
    );
    expect(pleskCalls('event_handler --delete')).toEqual([]);
    expect(ourHandlers().map((h) => h.slice(1))).toEqual(
      PLESK_EVENTS.map((event) => [event, '50', 'root', `${LAUNCHER} hook plesk ${event}`]),
    );
    expect(pleskHandlers(root)[0]).toEqual(['1', FOREIGN.event, '10', 'root', FOREIGN.command]);

    const record = JSON.parse(read('/etc/wpp/install/plesk.json')) as {
      registrations: { key: string; ids: string[]; undo: { args: string[] }[] }[];
    };
    for (const handler of ourHandlers()) {
      const registration = record.registrations.find((r) => r.key === `plesk event handler ${handler[1]}`);
      expect(registration?.ids).toEqual([handler[0]]);
      expect(registration?.undo.map((u) => u.args)).toEqual([['bin', 'event_handler', '--delete', handler[0]]]);
    }
    expect(decoyCalls(root)).toEqual([]);
  }, 60_000);

  it('a second install changes nothing: no handler created, deleted or registered again', async () => {
    const before = toolCalls(root).length;
    const run = await wpp(['install', 'plesk', '--root', root]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Nothing to change: wpp is installed for plesk\./);
    const since = toolCalls(root).slice(before);
    expect(since.filter((call) => call[2] === 'event_handler' && !READS.includes(call[3] ?? ''))).toEqual([]);
    expect(since.filter((call) => call[2] === 'extension' && call[3] !== '--list')).toEqual([]);
    expect(ourHandlers()).toHaveLength(PLESK_EVENTS.length);
  }, 60_000);

  it('creates again only a handler someone deleted, and never one twice', async () => {
    const gone = ourHandlers().find((h) => h[1] === 'site_create') as string[];
    writeFileSync(
      join(root, '.plesk-handlers'),
      pleskHandlers(root)
        .filter((h) => h[0] !== gone[0])
        .map((h) => `${h.join('\t')}\n`)
        .join(''),
    );
    const before = toolCalls(root).length;
    expect((await wpp(['install', 'plesk', '--root', root])).code).toBe(0);
    const since = toolCalls(root)
      .slice(before)
      .filter((call) => call[2] === 'event_handler' && !READS.includes(call[3] ?? ''));
    expect(since.map((call) => call.at(-1))).toEqual(['site_create']);
    expect(
      ourHandlers()
        .map((h) => h[1])
        .sort(),
    ).toEqual([...PLESK_EVENTS].sort());
  }, 60_000);

  it('uninstall deletes only our handlers by their recorded ids, removes the extension, and keeps the data', async () => {
    const ids = ourHandlers().map((h) => h[0]);
    const before = toolCalls(root).length;
    const run = await wpp(['uninstall', 'plesk', '--root', root]);
    expect(run.code).toBe(0);
    const since = toolCalls(root)
      .slice(before)
      .filter((call) => call[0] === PLESK);
    // Every recorded id, each once (uninstall goes in reverse plan order), and no other.
    const deleted = since.filter((call) => call[2] === 'event_handler').map((call) => call.slice(3));
    expect(deleted.every((call) => call[0] === '--delete')).toBe(true);
    expect(deleted.map((call) => call[1]).sort()).toEqual([...ids].sort());
    expect(since.filter((call) => call[2] === 'extension')).toEqual([[PLESK, 'bin', 'extension', '--uninstall', 'wpp']]);
    expect(pleskHandlers(root)).toEqual([['1', FOREIGN.event, '10', 'root', FOREIGN.command]]);
    expect([...filesBelow(root, FAKE_PLESK_STATE).keys()].sort()).toEqual(['/etc/wpp/env', ...FAKE_TOOLS].sort());
    expect(decoyCalls(root)).toEqual([]);
  }, 60_000);
});

describe('wpp install plesk --dry-run', () => {
  beforeAll(setUp);
  afterAll(() => removeTempDir(root));

  it('changes nothing on a fresh root and calls no registering tool', async () => {
    const run = await wpp(['install', 'plesk', '--root', root, '--dry-run']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/would register {2}Plesk event handler client_create/);
    expect(run.stdout).toMatch(/Dry run: nothing was changed/);
    expect([...filesBelow(root, FAKE_PLESK_STATE).keys()].sort()).toEqual([...FAKE_TOOLS].sort());
    // Only a look at the events Plesk offers: nothing registered.
    expect(toolCalls(root)).toEqual([[PLESK, 'bin', 'event_handler', '--list-events']]);
    expect(pleskHandlers(root)).toHaveLength(1);
  }, 60_000);
});

describe('wpp install plesk on a server that cannot take its handlers', () => {
  beforeEach(setUp);
  afterEach(() => removeTempDir(root));

  /** Nothing of wpp's below the root, no handler, no extension: the refusal came first. */
  function expectNothingDone() {
    expect([...filesBelow(root, FAKE_PLESK_STATE).keys()].filter((file) => !file.startsWith('/usr/local/psa/var/')).sort()).toEqual(
      [...FAKE_TOOLS].sort(),
    );
    expect(pleskHandlers(root)).toEqual([['1', FOREIGN.event, '10', 'root', FOREIGN.command]]);
    expect(toolCalls(root).filter((call) => call[2] === 'extension' || call[3] === '--create')).toEqual([]);
  }

  it('refuses, before writing anything, when Plesk does not offer an event wpp handles, and names it', async () => {
    fakePlesk(root, [FOREIGN], { events: PLESK_EVENTS.filter((event) => event !== 'domain_status_update') });
    const run = await wpp(['install', 'plesk', '--root', root]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      `this Plesk does not offer the event domain_status_update (${PLESK} bin event_handler --list-events): wpp cannot follow subscription suspensions on it`,
    );
    expect(toolCalls(root)).toContainEqual([PLESK, 'bin', 'event_handler', '--list-events']);
    expectNothingDone();
  }, 60_000);

  it('refuses on a hardened server (root.event_handler.lock) and says what to do', async () => {
    mkdirSync(join(root, '/usr/local/psa/var'), { recursive: true });
    writeFileSync(join(root, '/usr/local/psa/var/root.event_handler.lock'), '');
    const run = await wpp(['install', 'plesk', '--root', root]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('Plesk refuses event handlers that run as root while /usr/local/psa/var/root.event_handler.lock exists');
    expect(run.stderr).toContain('remove that file and run wpp install plesk again');
    expect(run.stderr).toContain('wpp import plesk --apply');
    expectNothingDone();
  }, 60_000);
});
