/**
 * `wpp install virtualmin` and `wpp uninstall virtualmin`: the real CLI against a temporary root
 * that holds a Webmin/Virtualmin skeleton (virtual-server's library, its module config with
 * another plugin, webmin.acl with users of Virtualmin and one without) and a fake systemctl.
 * The module's registration script is the real one, run below the root.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runWpp } from '../helpers/cli.js';
import { decoyCalls, decoyPath, fakeSystemctl, filesBelow, toolCalls } from '../helpers/fake-tools.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';
import {
  fakeVirtualmin,
  VIRTUALMIN_ACL_TEXT as ACL_TEXT,
  VIRTUALMIN_CONFIG_TEXT as CONFIG_TEXT,
  VIRTUALMIN_PATHS,
} from '../helpers/fake-virtualmin.js';

const { module: MODULE, config: CONFIG, acl: ACL, lib: LIB } = VIRTUALMIN_PATHS;
const HOOK = '/usr/local/lib/wpp/wpp hook virtualmin post';

let root: string;
let decoys: string;

beforeEach(() => {
  root = createTempDir('wpp-install-vm-');
  fakeSystemctl(root);
  fakeVirtualmin(root);
  decoys = decoyPath(root, ['systemctl', 'virtualmin', 'perl']);
});
afterEach(() => removeTempDir(root));

const wpp = (args: string[]) => runWpp([...args, '--root', root], { env: { PATH: `${decoys}:${process.env.PATH ?? ''}` } });
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const modeOf = (path: string) => statSync(join(root, path)).mode & 0o777;
const SKELETON = { '/usr/bin/systemctl': 0o755, [LIB]: 0o644, [CONFIG]: 0o600, [ACL]: 0o600 };
const MODULE_FILES: Record<string, number> = {
  'module.info': 0o644,
  'virtual_feature.pl': 0o644,
  'wpp-lib.pl': 0o644,
  'launch.cgi': 0o755,
  'index.cgi': 0o755,
  'wpp-register.pl': 0o755,
};

describe('wpp install virtualmin', () => {
  it("writes the Webmin module, sets post_command, adds the plugin and its module to Virtualmin's users; leaves the rest", async () => {
    const run = await wpp(['install', 'virtualmin']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(Object.fromEntries(filesBelow(root))).toEqual({
      ...SKELETON,
      '/etc/wpp/env': 0o640,
      '/usr/local/lib/wpp/wpp': 0o755,
      '/etc/systemd/system/wpp.service': 0o644,
      '/etc/systemd/system/wpp-panel-check.service': 0o644,
      '/etc/systemd/system/wpp-panel-check.timer': 0o644,
      '/etc/wpp/install/virtualmin.json': 0o600,
      ...Object.fromEntries(Object.entries(MODULE_FILES).map(([path, mode]) => [`${MODULE}/${path}`, mode])),
    });
    for (const name of Object.keys(MODULE_FILES)) expect(read(`${MODULE}/${name}`), name).not.toContain('{{');
    expect(read(`${MODULE}/module.info`)).toContain('depends=virtual-server\n');
    expect(read(`${MODULE}/wpp-lib.pl`)).toContain("our $WPP_LAUNCHER = '/usr/local/lib/wpp/wpp';");

    // Every other setting as it was, in its place; the file keeps its mode.
    expect(read(CONFIG)).toBe(`home_base=/home\npre_command=\nplugins=virtualmin-awstats wpp\nquotas=0\npost_command=${HOOK}\n`);
    expect(modeOf(CONFIG)).toBe(0o600);
    expect(read(ACL)).toBe('root: acl useradmin virtual-server webmin wpp\nreseller1: virtual-server wpp\nbob: useradmin\n');
    expect(read('/etc/wpp/env')).toContain('WPP_PANEL=virtualmin\n');
    expect(read('/etc/systemd/system/wpp-panel-check.service')).toContain('ExecStart=/usr/local/lib/wpp/wpp import virtualmin --if-due\n');
    expect(toolCalls(root)).toEqual([
      ['/usr/bin/systemctl', 'daemon-reload'],
      ['/usr/bin/systemctl', 'enable', 'wpp.service'],
      ['/usr/bin/systemctl', 'enable', '--now', 'wpp-panel-check.timer'],
    ]);
    expect(decoyCalls(root)).toEqual([]);
  });

  it('installs Web Protection as a Virtualmin feature of top-level servers (a checkbox per server, chosen by plans and templates)', async () => {
    expect((await wpp(['install', 'virtualmin'])).code).toBe(0);
    // Virtualmin counts a plugin as a feature when it defines feature_setup (list_feature_plugins),
    // and offers it where feature_suitable says: never on a sub-server or an alias.
    const answer = execFileSync(
      'perl',
      [
        '-e',
        'require $ARGV[0]; print join(",", defined(&feature_setup) ? 1 : 0, feature_suitable(), feature_suitable({ id => 1 }), feature_suitable(undef, { id => 1 }), feature_label())',
        join(root, MODULE, 'virtual_feature.pl'),
      ],
      { encoding: 'utf8' },
    );
    expect(answer).toBe('1,1,0,0,Protect the websites with Web Protection?');
  });

  it('a second install changes nothing', async () => {
    expect((await wpp(['install', 'virtualmin'])).code).toBe(0);
    const before = new Map([...filesBelow(root)].map(([path, mode]) => [path, `${mode}:${read(path)}`]));
    const again = await wpp(['install', 'virtualmin']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Nothing to change: wpp is installed for virtualmin.');
    expect(new Map([...filesBelow(root)].map(([path, mode]) => [path, `${mode}:${read(path)}`]))).toEqual(before);
  });

  it("refuses to replace another vendor's post_command, writing nothing and saying what to do", async () => {
    writeFileSync(join(root, CONFIG), `${CONFIG_TEXT}post_command=/opt/vendor/notify.sh\n`, { mode: 0o600 });
    const run = await wpp(['install', 'virtualmin']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      "post_command=/opt/vendor/notify.sh in /etc/webmin/virtual-server/config): wpp does not replace another vendor's command",
    );
    expect(run.stderr).toContain(`post_command=/opt/vendor/notify.sh ; ${HOOK}`);
    expect(read(CONFIG)).toBe(`${CONFIG_TEXT}post_command=/opt/vendor/notify.sh\n`);
    expect(Object.fromEntries(filesBelow(root))).toEqual(SKELETON);
  });

  it('installs beside a post_command the administrator chained it into, and leaves that command to them on uninstall', async () => {
    const chained = `post_command=/opt/vendor/notify.sh ; ${HOOK}`;
    writeFileSync(join(root, CONFIG), `${CONFIG_TEXT}${chained}\n`, { mode: 0o600 });
    expect((await wpp(['install', 'virtualmin'])).code).toBe(0);
    expect(read(CONFIG)).toContain(`\n${chained}\n`);
    const gone = await wpp(['uninstall', 'virtualmin']);
    expect(gone.code).toBe(0);
    expect(read(CONFIG)).toContain(`\n${chained}\n`);
    expect(read(CONFIG)).toContain('\nplugins=virtualmin-awstats\n');
  });

  it('refuses where Virtualmin is not installed, writing nothing', async () => {
    removeTempDir(join(root, LIB));
    const run = await wpp(['install', 'virtualmin']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('Virtualmin is not installed here (no /usr/share/webmin/virtual-server/virtual-server-lib.pl)');
    expect(Object.fromEntries(filesBelow(root))).toEqual({ '/usr/bin/systemctl': 0o755, [CONFIG]: 0o600, [ACL]: 0o600 });
  });
});

describe('wpp uninstall virtualmin', () => {
  it('removes the module and its registration, restores the settings it changed, keeps the data', async () => {
    expect((await wpp(['install', 'virtualmin'])).code).toBe(0);
    const run = await wpp(['uninstall', 'virtualmin']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(read(CONFIG)).toBe(CONFIG_TEXT);
    expect(read(ACL)).toBe(ACL_TEXT);
    expect(existsSync(join(root, MODULE))).toBe(false);
    expect(Object.fromEntries(filesBelow(root))).toEqual({ ...SKELETON, '/etc/wpp/env': 0o640 });
    expect(existsSync(join(root, '/var/lib/wpp'))).toBe(true);
    expect(decoyCalls(root)).toEqual([]);
  });
});
