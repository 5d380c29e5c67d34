/** `wpp rollback`: back to the version the last upgrade from a release replaced. */
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { z } from 'zod';
import { restoreDatabase } from '../db/backup.js';
import { LAYOUT } from '../install/layout.js';
import { newestMigration, schemaLevel } from '../db/migrate.js';
import { backupBefore, installedData } from '../install/release-data.js';
import { rollbackTarget } from '../install/rollback.js';
import { TOOL_PATH, createToolRunner } from '../install/tools.js';
import { requireRoot } from './install.command.js';
import { optionValues, rootFolderOption, validateOptions } from './shared.js';

const rollbackOptions = z.object({
  root: rootFolderOption,
  'restore-backup': z.boolean().optional(),
});

async function runRollback(raw: Record<string, unknown>): Promise<void> {
  const options = validateOptions(rollbackOptions, raw);
  requireRoot('rollback', '', options.root);
  const tools = createToolRunner(options.root ?? '/');
  const target = await rollbackTarget(tools);
  const keptAt = tools.at(target.to.path);

  const data = await installedData(tools);
  const level = schemaLevel(data.databaseFile);
  const known = newestMigration(join(keptAt, 'migrations'));
  if (level !== undefined && level > known) {
    const backup = await backupBefore(tools, target.from.version);
    if (!options['restore-backup'] || !backup)
      throw new Error(
        [
          `wpp ${target.from.version} migrated the database ${data.shownDatabaseFile} to migration ${level}; wpp ${target.to.version} knows migrations up to ${known} and cannot open it.`,
          backup
            ? `The copy taken before those migrations is ${backup}. To go back with it: systemctl stop wpp, then wpp rollback --restore-backup. ` +
              `What changed since the upgrade is not in that copy; the current database is kept beside it (plugin.sqlite.before-restore-<time>).`
            : `No copy from before those migrations is in ${LAYOUT.upgradeBackupDir}: stay on wpp ${target.from.version}.`,
          'Nothing was changed.',
        ].join('\n'),
      );
    const outcome = await restoreDatabase(data.databaseFile, tools.at(backup), {
      migrationsDir: join(keptAt, 'migrations'),
      keyFile: data.keyFile,
      now: new Date(),
      host: hostname(),
    });
    console.log(`restored  ${backup} to ${data.shownDatabaseFile} (migration ${outcome.restored.migration})`);
    if (outcome.keptAs)
      console.log(
        `kept  the database of wpp ${target.from.version} as ${outcome.keptAs.slice(tools.root === '/' ? 0 : tools.root.length)}`,
      );
  }

  for (const panel of target.panels) {
    console.log(`wpp ${target.to.version}: wpp install ${panel}`);
    // The kept version installs itself, with the system's Node.js and a clean environment, as its launcher would run it.
    const run = spawnSync(
      process.execPath,
      [join(keptAt, 'bin/wpp.js'), 'install', panel, ...(options.root ? ['--root', options.root] : [])],
      {
        stdio: 'inherit',
        env: { PATH: TOOL_PATH },
      },
    );
    if (run.status !== 0)
      throw new Error(
        `wpp ${target.to.version}'s install ${panel} failed (exit ${run.status ?? run.signal}); the launcher may still run wpp ${target.from.version}: ` +
          `run ${target.to.path}/bin/wpp.js install ${panel} again once the problem above is solved`,
      );
  }
  console.log(
    `wpp ${target.to.version} runs again. wpp ${target.from.version} is kept in ${target.from.path} (wpp rollback goes forward to it).`,
  );
}

export const rollbackCommand = () =>
  new Command('rollback')
    .description('go back to the version the last upgrade from a release replaced (kept in /usr/local/lib/wpp/<version>); run as root')
    .option('--root <dir>', 'work under this folder instead of / (staging, tests)')
    .option(
      '--restore-backup',
      "when the newer version migrated the database beyond what the older one knows: put back the copy taken before the upgrade's migrations (the current database is kept beside it)",
    )
    .action(async (_options, command: Command) => {
      await runRollback(optionValues(command));
    });
