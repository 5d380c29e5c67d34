/**
 * What the installer reads back from /etc/wpp/env, the settings file an administrator edits:
 * where the database and the key file are (the release install and `wpp rollback` copy and
 * check that database), and whether a provider is named (only then does the install start the
 * service, which would otherwise provision into the embedded sandbox). A temporary root with
 * the file written as an administrator might, and a fake systemctl.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY_FILE } from '../../src/config.js';
import { envFileContent, systemdService, systemdUnit } from '../../src/install/common.js';
import { installedData } from '../../src/install/release-data.js';
import { currentInstallSource } from '../../src/install/source.js';
import { createToolRunner } from '../../src/install/tools.js';
import { fakeSystemctl, toolCalls } from '../helpers/fake-tools.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

let root: string;
beforeEach(() => {
  root = createTempDir('wpp-env-file-');
  fakeSystemctl(root);
});
afterEach(() => removeTempDir(root));

const writeEnv = (text: string) => {
  mkdirSync(join(root, '/etc/wpp'), { recursive: true });
  writeFileSync(join(root, '/etc/wpp/env'), text);
};

/** Where the installer finds the database and the key file, as paths on the target system. */
async function dataPaths(text: string | undefined) {
  if (text !== undefined) writeEnv(text);
  const data = await installedData(createToolRunner(root));
  return { database: data.shownDatabaseFile, keyFile: data.keyFile.slice(root.length) };
}

/** Whether registering the service restarts it, that is: whether the settings name a provider. */
async function startsService(text: string | undefined): Promise<boolean> {
  if (text !== undefined) writeEnv(text);
  const unit = systemdUnit(currentInstallSource());
  await systemdService(unit).register(createToolRunner(root));
  return toolCalls(root).some(([, ...args]) => args.join(' ') === 'restart wpp.service');
}

const URL = 'https://api.provider.example/v1?region=eu&tier=2';

describe('the data folder and key file the installer reads from /etc/wpp/env', () => {
  it('are the defaults without the file, and with the file as `wpp install` writes it', async () => {
    const defaults = { database: '/var/lib/wpp/plugin.sqlite', keyFile: `/var/lib/wpp/${API_KEY_FILE}` };
    expect(await dataPaths(undefined)).toEqual(defaults);
    expect(await dataPaths(envFileContent({ panel: 'cpanel', providerUrl: URL, metricsToken: 'm'.repeat(32) }))).toEqual(defaults);
  });

  it('take a plain, single- or double-quoted value, with or without export, leading blanks or a blank line', async () => {
    expect((await dataPaths('WPP_DATA_DIR=/srv/wpp\n')).database).toBe('/srv/wpp/plugin.sqlite');
    expect((await dataPaths("WPP_DATA_DIR='/srv/wpp data'\n")).database).toBe('/srv/wpp data/plugin.sqlite');
    expect((await dataPaths('\n  export WPP_DATA_DIR="/srv/quoted"\n\n')).database).toBe('/srv/quoted/plugin.sqlite');
    expect(await dataPaths("WPP_DATA_DIR=/srv/wpp\nWPP_KEY_FILE='/etc/wpp/keys/api.key'\n")).toEqual({
      database: '/srv/wpp/plugin.sqlite',
      keyFile: '/etc/wpp/keys/api.key',
    });
    expect((await dataPaths('WPP_DATA_DIR=/srv/wpp\n')).keyFile).toBe(`/srv/wpp/${API_KEY_FILE}`);
  });

  it('skip comments and names that only start alike; the last assignment counts; an empty one is unset', async () => {
    expect((await dataPaths('# WPP_DATA_DIR=/commented\nWPP_DATA_DIRS=/other\n')).database).toBe('/var/lib/wpp/plugin.sqlite');
    expect((await dataPaths('WPP_DATA_DIR=/srv/a\nWPP_DATA_DIR=/srv/b\n')).database).toBe('/srv/b/plugin.sqlite');
    expect((await dataPaths("WPP_DATA_DIR=''\n")).database).toBe('/var/lib/wpp/plugin.sqlite');
    expect((await dataPaths('WPP_DATA_DIR=\n')).database).toBe('/var/lib/wpp/plugin.sqlite');
  });
});

describe('whether /etc/wpp/env names a provider (the install starts the service only then)', () => {
  it('no file, or the file as `wpp install` writes it without --provider-url: not started', async () => {
    expect(await startsService(undefined)).toBe(false);
    expect(await startsService(envFileContent({ panel: 'cpanel', metricsToken: 'm'.repeat(32) }))).toBe(false);
  });

  it('the file as `wpp install --provider-url` writes it: started', async () => {
    expect(await startsService(envFileContent({ panel: 'cpanel', providerUrl: URL, metricsToken: 'm'.repeat(32) }))).toBe(true);
  });

  it.each([
    ['a plain value', `WPP_PROVIDER_URL=${URL}\n`, true],
    ['a double-quoted value after blanks and a blank line', `\n  WPP_PROVIDER_URL="${URL}"\n`, true],
    ['a commented-out line', `# WPP_PROVIDER_URL=${URL}\n`, false],
    ['an empty value', 'WPP_PROVIDER_URL=\n', false],
    ['empty quotes', "WPP_PROVIDER_URL=''\n", false],
    ['another name that starts alike', `WPP_PROVIDER_URLS=${URL}\n`, false],
  ])('%s', async (_case, text, started) => {
    expect(await startsService(text)).toBe(started);
  });
});

describe('where the two readers of /etc/wpp/env disagreed, both now read it as the launcher (sh) does', () => {
  it('an exported provider starts the service: sh sets it for wpp (`set -a`) just the same', async () => {
    expect(await startsService(`export WPP_PROVIDER_URL=${URL}\n`)).toBe(true);
  });

  it('a provider emptied further down does not: the last assignment counts', async () => {
    expect(await startsService(`WPP_PROVIDER_URL=${URL}\nWPP_PROVIDER_URL=\n`)).toBe(false);
  });

  it('`NAME= value` sets nothing (sh runs the value as a command): the data folder stays where it was', async () => {
    expect((await dataPaths('WPP_DATA_DIR= /srv/wpp\n')).database).toBe('/var/lib/wpp/plugin.sqlite');
    expect((await dataPaths('WPP_DATA_DIR=/srv/a\nWPP_DATA_DIR= /srv/b\n')).database).toBe('/srv/a/plugin.sqlite');
    expect(await startsService(`WPP_PROVIDER_URL= ${URL}\n`)).toBe(false);
  });
});
