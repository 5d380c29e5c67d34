/**
 * The installer's reading of /etc/wpp/env against what the launcher's sh makes of the same
 * file (`set -a; . /etc/wpp/env`): for every line an administrator might write within what the
 * reader promises (plain, single- or double-quoted values, no expansion), the same value.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEnvFile } from '../../src/install/env-file.js';
import { withTempDir } from '../helpers/temp.js';

const NAMES = ['WPP_DATA_DIR', 'WPP_KEY_FILE', 'WPP_PROVIDER_URL'] as const;

/** What sh sets each name to after sourcing `text` (undefined: unset or empty, as the installer counts it). */
const shReads = (text: string) =>
  withTempDir((dir) => {
    const file = join(dir, 'env');
    writeFileSync(file, text);
    const script = `set -a; . "$1" >/dev/null 2>&1; ${NAMES.map((name) => `printf '%s\\0' "\${${name}-}"`).join('; ')}`;
    const values = execFileSync('/bin/sh', ['-c', script, 'sh', file], {
      encoding: 'utf8',
      cwd: dir,
      env: { PATH: '/usr/bin:/bin' },
    }).split('\0');
    return Object.fromEntries(NAMES.map((name, i) => [name, values[i] || undefined]));
  });

const CASES: [string, string][] = [
  ['nothing', ''],
  ['plain values', 'WPP_DATA_DIR=/srv/wpp\nWPP_KEY_FILE=/etc/wpp/api.key\nWPP_PROVIDER_URL=https://api.provider.example\n'],
  ['single quotes around a space and a query', "WPP_DATA_DIR='/srv/wpp data'\nWPP_PROVIDER_URL='https://p.example/v1?a=1&b=2'\n"],
  ['double quotes', 'WPP_DATA_DIR="/srv/quoted"\n'],
  ['export, leading blanks, blank lines', '\n  export WPP_DATA_DIR=/srv/exported\n\n\texport WPP_PROVIDER_URL="https://p.example"\n'],
  ['comments', '# WPP_DATA_DIR=/commented\n  # WPP_PROVIDER_URL=https://p.example\n'],
  ['names that only start alike', 'WPP_DATA_DIRS=/other\nMY_WPP_DATA_DIR=/other\n'],
  ['the last assignment counts', 'WPP_DATA_DIR=/srv/a\nWPP_DATA_DIR=/srv/b\nWPP_PROVIDER_URL=https://p.example\nWPP_PROVIDER_URL=\n'],
  ['empty values and empty quotes', 'WPP_DATA_DIR=\nWPP_KEY_FILE=\'\'\nWPP_PROVIDER_URL=""\n'],
  ['a blank after =', 'WPP_DATA_DIR=/srv/a\nWPP_DATA_DIR= /srv/b\nWPP_PROVIDER_URL= https://p.example\n'],
  ['trailing blanks', 'WPP_DATA_DIR=/srv/wpp   \n'],
  ['no line break at the end', 'WPP_DATA_DIR=/srv/last'],
];

describe('parseEnvFile', () => {
  it.each(CASES)('%s: the values sh sets', async (_case, text) => {
    expect(parseEnvFile(text)).toEqual(await shReads(text));
  });

  it('keeps only the settings the installer reads', () => {
    expect(parseEnvFile("WPP_PANEL=cpanel\nWPP_PROVIDER_API_KEY='secret'\nWPP_DATA_DIR=/srv/wpp\n")).toEqual({ WPP_DATA_DIR: '/srv/wpp' });
  });
});
