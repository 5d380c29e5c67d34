/**
 * The settings file /etc/wpp/env as the installer reads it back: where the database and the
 * key file are (the release install and `wpp rollback`), and whether a provider is named (the
 * install starts the service only then). The launcher sources the file with sh (`set -a`), so
 * a setting here is what sh makes of its `NAME=value` lines: plain, single- or double-quoted
 * values, `export` allowed, comments and blank lines skipped, the last assignment counts and an
 * empty one is unset. No expansion ($X, `...`): `wpp install` writes single-quoted values.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { LAYOUT } from './layout.js';
import type { ToolRunner } from './tools.js';

/** The settings the installer reads; the file's other names are the plugin's (src/config.ts checks them at its start). */
const envFileSettings = z.object({
  WPP_DATA_DIR: z.string().min(1).optional(),
  WPP_KEY_FILE: z.string().min(1).optional(),
  WPP_PROVIDER_URL: z.string().min(1).optional(),
});
export type EnvFileSettings = z.infer<typeof envFileSettings>;

const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/;

export function parseEnvFile(text: string): EnvFileSettings {
  const values = new Map<string, string | undefined>();
  for (const line of text.split('\n')) {
    const [, name, raw] = ASSIGNMENT.exec(line) ?? [];
    if (name === undefined || raw === undefined) continue;
    // `NAME= value`: sh runs `value` as a command with NAME set for it alone; the file's NAME stays as it was.
    if (/^\s+\S/.test(raw)) continue;
    const value = raw
      .trim()
      .replace(/^'(.*)'$/, '$1')
      .replace(/^"(.*)"$/, '$1');
    values.set(name, value || undefined);
  }
  return envFileSettings.parse(Object.fromEntries(values));
}

/** The settings of /etc/wpp/env (below the tools' root); none when there is no file or it cannot be read. */
export async function readEnvFile(tools: ToolRunner): Promise<EnvFileSettings> {
  return parseEnvFile(await readFile(tools.at(LAYOUT.envFile), 'utf8').catch(() => ''));
}
