/** `wpp backup FILE` and `wpp restore FILE`. */
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { backupDatabase, BackupError, restoreDatabase, type DatabaseSummary } from '../db/backup.js';
import { formatBytes } from '../doctor/checks.js';
import { openPluginDatabase } from '../db/plugin-database.js';
import { paths } from '../paths.js';
import { standaloneConfigFromEnv } from './shared.js';

const describe = (s: DatabaseSummary) =>
  `${formatBytes(s.bytes)}, migration ${s.migration}, ${s.accounts} account(s), ${s.websites} website(s)`;

/** A refusal is one `wpp: ...` line and exit code 1; anything else is reported as is. */
async function refusing(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    console.error(`wpp: ${error.message}; nothing was changed`);
    process.exitCode = 1;
  }
}

async function runBackup(file: string, options: { force?: boolean }): Promise<void> {
  const config = standaloneConfigFromEnv();
  const target = resolve(file);
  const summary = await backupDatabase(config.databaseFile, target, { force: options.force === true, migrationsDir: paths.migrations });
  console.log(`backed up ${config.databaseFile} to ${target} (${describe(summary)}; checked, mode 0600)`);
  console.log(`Keep the key file ${config.keyFile} with it: it is not in the backup, and without it the stored API keys cannot be read.`);
}

async function runRestore(file: string): Promise<void> {
  const config = standaloneConfigFromEnv();
  const source = resolve(file);
  const outcome = await restoreDatabase(config.databaseFile, source, {
    migrationsDir: paths.migrations,
    keyFile: config.keyFile,
    now: new Date(),
    host: hostname(),
  });
  // The normal open brings an older backup's schema forward.
  openPluginDatabase(config).close();
  console.log(`restored ${source} to ${config.databaseFile} (${describe(outcome.restored)})`);
  if (outcome.keptAs) console.log(`the database it replaced is kept as ${outcome.keptAs}`);
  console.log('Start the service again: systemctl start wpp (or wpp serve).');
}

export const backupCommand = () =>
  new Command('backup')
    .description("copy the plugin's database to FILE, safely while wpp serve runs (SQLite online backup), checked before it is kept")
    .argument('<file>', 'where to write the copy (mode 0600)')
    .option('--force', 'replace FILE if it exists')
    .action((file: string, options: { force?: boolean }) => refusing(() => runBackup(file, options)));

export const restoreCommand = () =>
  new Command('restore')
    .description("put a backup in place of the plugin's database; refused while wpp serve runs; the current database is kept aside")
    .argument('<file>', 'a file written by wpp backup')
    .addHelpText(
      'after',
      '\nThe file must be a sound wpp database no newer than this wpp, and the key file (WPP_KEY_FILE) must open its API keys;\n' +
        'otherwise nothing is changed. An older backup is migrated forward.',
    )
    .action((file: string) => refusing(() => runRestore(file)));
