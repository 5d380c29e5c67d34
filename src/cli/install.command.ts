/**
 * `wpp install <panel>` and `wpp uninstall <panel>`: one command puts everything in place
 * (service, hooks, menu entries, pages), one takes it away; the data stays unless --purge.
 */
import { randomBytes } from 'node:crypto';
import { Command } from 'commander';
import { z } from 'zod';
import { install, uninstall, type EngineOptions } from '../install/engine.js';
import { INSTALL_TARGETS, INSTALLERS, type InstallTarget } from '../install/panels.js';
import { LAYOUT } from '../install/layout.js';
import { currentInstallSource } from '../install/source.js';
import { checkSourceTrusted, serverTrust } from '../install/source-trust.js';
import { createToolRunner } from '../install/tools.js';
import { paths } from '../paths.js';
import { checkReleaseRunsHere } from '../install/release.js';
import { prepareDatabaseForRelease } from '../install/release-data.js';
import { optionValues, rootFolderOption, UsageError, validateOptions } from './shared.js';

const targetSchema = z.enum(INSTALL_TARGETS as [InstallTarget, ...InstallTarget[]], {
  error: () => `the panel is one of ${INSTALL_TARGETS.join(', ')}`,
});

const commonOptions = {
  root: rootFolderOption,
  'dry-run': z.boolean().optional(),
};
const installOptions = z.object({
  ...commonOptions,
  'provider-url': z.url({ protocol: /^https?$/, error: 'an http(s) URL' }).optional(),
  'public-url': z.url({ protocol: /^https?$/, error: 'an http(s) URL' }).optional(),
});
const uninstallOptions = z.object({ ...commonOptions, purge: z.boolean().optional() });

/** Installing writes system folders and calls the panel's tools as root; --root stages into a folder instead. */
export function requireRoot(verb: 'install' | 'uninstall' | 'rollback', panel: string, root: string | undefined): void {
  if (root !== undefined || process.getuid?.() === 0) return;
  const command = panel ? `${verb} ${panel}` : verb;
  throw new Error(
    `wpp ${command} must run as root: it writes under /etc, /usr/local and /var/lib and calls the panel's own tools. ` +
      `Run it as root (sudo wpp ${command}), or give --root DIR to write under another folder.`,
  );
}

function engineOptions(root: string | undefined, dryRun: boolean): EngineOptions {
  return {
    tools: createToolRunner(root ?? '/'),
    dryRun,
    print: (line) => console.log(line),
    version: currentInstallSource().version,
    now: () => new Date(),
  };
}

async function runInstall(panelArg: string, raw: Record<string, unknown>): Promise<void> {
  const panel = parsePanel(panelArg);
  const options = validateOptions(installOptions, raw);
  requireRoot('install', panel, options.root);
  const source = currentInstallSource();
  const engine = engineOptions(options.root, options['dry-run'] === true);
  if (source.release) {
    checkReleaseRunsHere(source.release.manifest, { platform: process.platform, arch: process.arch, modules: process.versions.modules });
    // The unpacked release runs as root right now; its copy is checked again once made (release.ts).
    checkSourceTrusted({ nodePath: source.nodePath, packageRoot: source.release.from }, serverTrust());
  } else {
    // Under --root too: the launcher it stages runs this same Node.js and package as root.
    checkSourceTrusted(source, serverTrust());
  }
  // From a checkout (development) the database is migrated by whichever wpp opens it first, as before.
  const database = source.release
    ? await prepareDatabaseForRelease(engine.tools, { version: source.version, migrationsDir: paths.migrations }, engine)
    : undefined;
  const plan = INSTALLERS[panel](source, {
    panel,
    providerUrl: options['provider-url'],
    // From the environment only: a key on the command line is visible to every user in ps.
    providerApiKey: process.env.WPP_PROVIDER_API_KEY || undefined,
    publicUrl: options['public-url'],
    // Used only when the env file is first written; an existing one is the administrator's.
    metricsToken: randomBytes(32).toString('base64url'),
  });
  const { changes } = await install(plan, engine);
  if (!engine.dryRun) database?.migrate();
  if (engine.dryRun) {
    console.log(
      changes === 0 ? `Nothing to change: wpp is installed for ${panel}.` : `Dry run: nothing was changed (${changes} change(s) to make).`,
    );
    return;
  }
  console.log(
    changes === 0 ? `Nothing to change: wpp is installed for ${panel}.` : `wpp is installed for ${panel} (${changes} change(s)).`,
  );
  for (const step of plan.nextSteps) console.log(`Next: ${step}`);
}

async function runUninstall(panelArg: string, raw: Record<string, unknown>): Promise<void> {
  const panel = parsePanel(panelArg);
  const options = validateOptions(uninstallOptions, raw);
  requireRoot('uninstall', panel, options.root);
  const engine = engineOptions(options.root, options['dry-run'] === true);
  const { changes } = await uninstall(panel, { ...engine, purge: options.purge === true });
  if (engine.dryRun) console.log(`Dry run: nothing was changed (${changes} change(s) to make).`);
  else if (changes > 0) {
    console.log(
      options.purge
        ? `wpp is removed from ${panel}, with its data.`
        : `wpp is removed from ${panel}. The data stays in ${LAYOUT.dataDir} and ${LAYOUT.configDir} (--purge removes them).`,
    );
  }
}

function parsePanel(value: string): InstallTarget {
  const parsed = targetSchema.safeParse(value);
  if (!parsed.success) throw new UsageError(`unknown panel "${value}": ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

const rootHelp =
  'write and call the panel tools under this folder instead of / (staging, tests): DIR/usr/local/cpanel/bin/manage_hooks, ...';

export const installCommand = () =>
  new Command('install')
    .description('install into a panel: service, hooks, menu entries and pages (run as root; twice is the same as once)')
    .argument('<panel>', INSTALL_TARGETS.join(', '))
    .option('--root <dir>', rootHelp)
    .option('--dry-run', 'print what would be done, change nothing')
    .option(
      '--provider-url <url>',
      `WPP_PROVIDER_URL for ${LAYOUT.envFile} when it is first written (the key comes from WPP_PROVIDER_API_KEY in the environment)`,
    )
    .option('--public-url <url>', `WPP_PUBLIC_URL for ${LAYOUT.envFile} when it is first written`)
    .action(async (panel: string, _options, command: Command) => {
      await runInstall(panel, optionValues(command));
    });

export const uninstallCommand = () =>
  new Command('uninstall')
    .description(`remove what \`wpp install <panel>\` put in place; the data (${LAYOUT.dataDir}, ${LAYOUT.envFile}) stays unless --purge`)
    .argument('<panel>', INSTALL_TARGETS.join(', '))
    .option('--root <dir>', rootHelp)
    .option('--dry-run', 'print what would be done, change nothing')
    .option('--purge', 'also remove the data: the database, secrets, key file and settings')
    .action(async (panel: string, _options, command: Command) => {
      await runUninstall(panel, optionValues(command));
    });
