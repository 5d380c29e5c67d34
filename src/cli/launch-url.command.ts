import { Command } from 'commander';
import { z } from 'zod';
import type { StandaloneConfig } from '../config.js';
import { createLaunchToken, DEMO_LAUNCH_TOKEN_MAX_AGE_MS, LAUNCH_TOKEN_MAX_AGE_MS, type LaunchRequest } from '../core/launch-tokens.js';
import { normalizeLocaleTag } from '../core/locale.js';
import { accountNameSchema } from '../panel/events.js';
import { readSignInKey } from '../secrets.js';
import { domainSchema } from '../provider/spec.js';
import { configFromEnv, optionValues, UsageError, validateOptions } from './shared.js';

const launchOptions = z.object({
  account: accountNameSchema.optional(),
  domain: domainSchema.optional(),
  admin: z.string().trim().min(1, 'an admin name is required').max(100).optional(),
  reseller: accountNameSchema.optional(),
  panel: z.string().trim().min(1).max(50),
  // Checked below, not here: a language the pages cannot use is left out, never a failed sign-in.
  lang: z.string().optional(),
});

/** The plugin's address as the user's browser reaches it. */
export const pagesBaseUrl = (config: Pick<StandaloneConfig, 'publicUrl' | 'host' | 'port'>) =>
  config.publicUrl ?? `http://${config.host}:${config.port}`;

/**
 * A signed sign-in URL for the pages. Valid 60 seconds; with the embedded sandbox (a demo,
 * nothing real behind it) 15 minutes, time enough to read the terminal and open a browser.
 * Signed with the sign-in key in the data folder, never with WPP_PANEL_SECRET: only a process
 * that may read the data folder (root, as the panels' pages run it) can sign anyone in.
 */
export function launchUrl(
  config: Pick<StandaloneConfig, 'publicUrl' | 'host' | 'port' | 'dataDir'>,
  request: LaunchRequest,
  options: { now: number; sandbox: boolean },
): { url: string; expiresAt: number } {
  const secret = readSignInKey(config.dataDir);
  const maxAgeMs = options.sandbox ? DEMO_LAUNCH_TOKEN_MAX_AGE_MS : LAUNCH_TOKEN_MAX_AGE_MS;
  const { token, claims } = createLaunchToken(secret, request, { now: options.now, maxAgeMs, maxLifeMs: maxAgeMs });
  return { url: `${pagesBaseUrl(config)}/launch?token=${token}`, expiresAt: claims.expiresAt };
}

function runLaunchUrl(raw: Record<string, unknown>): void {
  const options = validateOptions(launchOptions, raw);
  const whoCount = [options.account, options.admin, options.reseller].filter((who) => who !== undefined).length;
  if (whoCount !== 1) {
    throw new UsageError(
      "give one of --account (a customer of the panel), --admin (one of the host's admins) or --reseller (a reseller of the panel)",
    );
  }
  if (options.account === undefined && options.domain !== undefined) throw new UsageError('--domain goes with --account alone');
  const config = configFromEnv();
  const locale = normalizeLocaleTag(options.lang);
  if (options.lang !== undefined && locale === undefined) {
    console.error(`wpp launch-url: --lang ${JSON.stringify(options.lang.slice(0, 40))} is not a language tag: the pages open in English`);
  }
  const request: LaunchRequest =
    options.account !== undefined
      ? { role: 'customer', account: options.account, domain: options.domain, panel: options.panel, locale }
      : options.reseller !== undefined
        ? { role: 'reseller', reseller: options.reseller, panel: options.panel, locale }
        : { role: 'admin', admin: options.admin as string, panel: options.panel, locale };
  const { url } = launchUrl(config, request, { now: Date.now(), sandbox: 'embedded' in config.provider });
  console.log(url);
}

export const launchUrlCommand = () =>
  new Command('launch-url')
    .description("print a one-time sign-in URL into the pages: a customer's (--account), an admin's (--admin) or a reseller's (--reseller)")
    .option('--account <name>', 'the panel account whose domains the customer sees')
    .option('--domain <domain>', "open this domain's page (with --account)")
    .option('--admin <name>', "an admin's name, recorded with what they change")
    .option('--reseller <name>', "a reseller of the panel: the admin pages for the reseller's own customers")
    .option('--panel <name>', 'the panel asking (recorded with the session)', 'generic')
    .option('--lang <tag>', "the panel user's language (de, de-AT, es_ES.UTF-8): the pages speak it if the plugin has it, else English")
    .addHelpText(
      'after',
      `
The URL is valid once, for ${LAUNCH_TOKEN_MAX_AGE_MS / 1000} seconds (${DEMO_LAUNCH_TOKEN_MAX_AGE_MS / 60_000} minutes with the embedded sandbox).
The panel, which has signed its user in, runs this and redirects the browser to the URL.`,
    )
    .action((_options, command: Command) => {
      runLaunchUrl(optionValues(command));
    });
