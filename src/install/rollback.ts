/**
 * `wpp rollback`: back to the release an upgrade kept (/usr/local/lib/wpp/<previous>). It is
 * that version's own `wpp install <panel>` for every installed panel, run from its kept copy,
 * so its launcher, hooks, pages and service come back exactly as that version writes them,
 * and the version rolled back from is kept in turn (a second rollback goes forward again).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readAllInstallRecords } from './install-record.js';
import { LAYOUT } from './layout.js';
import type { ToolRunner } from './tools.js';

export interface RollbackTarget {
  /** The version the launcher runs now, and the kept one it goes back to (paths on the target system). */
  from: { version: string; path: string };
  to: { version: string; path: string };
  /** Every installed panel: each is installed again by the kept version. */
  panels: string[];
}

/** What a rollback would do, or an error saying why there is nothing to go back to. */
export async function rollbackTarget(tools: ToolRunner): Promise<RollbackTarget> {
  const records = await readAllInstallRecords(tools);
  if (records.length === 0) throw new Error(`wpp is not installed (no record in ${LAYOUT.recordDir}): nothing to roll back`);
  const kept = new Set(records.map((r) => r.releases?.find((release) => release.previous)?.path));
  const [path] = kept;
  if (kept.size !== 1 || path === undefined)
    throw new Error(
      kept.size > 1
        ? `the installed panels keep different previous versions (${records.map((r) => `${r.panel}: ${r.releases?.find((x) => x.previous)?.version ?? 'none'}`).join(', ')}): install the release you want with wpp install <panel> instead`
        : 'no previous version is kept: wpp rollback goes back to the release an upgrade from a release replaced, and there was none yet',
    );
  const record = records[0];
  const to = record?.releases?.find((r) => r.path === path);
  const from = record?.releases?.find((r) => !r.previous);
  if (!to || !from) throw new Error('the install records name no current release: install one with wpp install <panel>');
  if (!existsSync(join(tools.at(to.path), 'bin/wpp.js')))
    throw new Error(`the kept version ${to.version} is no longer in ${to.path}: install the release you want with wpp install <panel>`);
  return {
    from: { version: from.version, path: from.path },
    to: { version: to.version, path: to.path },
    panels: records.map((r) => r.panel),
  };
}
