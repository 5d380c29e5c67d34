/**
 * `wpp hook <panel> ...`: what a panel runs on an event. It translates the panel's input
 * into panel events and writes them into the jobs table, nothing more, so the panel never
 * waits on the provider. Where the hook cannot open the database (a hook running as a
 * panel user), it posts the events, signed, to the plugin's /hooks/events instead.
 */
import { Command } from 'commander';
import { ensurePanelSecret, type Config } from '../config.js';
import { ingestEvents, type IngestResult } from '../core/ingest.js';
import { queueJob, type OwnerLookup } from '../core/job-kinds.js';
import { createJobsRepo } from '../db/jobs.repo.js';
import type { Db } from '../db/open.js';
import { openPluginDatabase } from '../db/plugin-database.js';
import { describeCpanelHooks, readCpanelHook } from '../panel/adapters/cpanel.js';
import { DIRECTADMIN_HOOKS } from '../panel/adapters/directadmin.js';
import { translateDirectAdminHookWithFiles } from '../panel/directadmin-files.js';
import { cpanelDomainsOf } from '../panel/listings/cpanel.js';
import { cpanelPackageProtection } from '../panel/listings/cpanel-features.js';
import { EMIT_OPTIONS, translateEmit } from '../panel/adapters/emit.js';
import { PLESK_EVENTS } from '../panel/adapters/plesk.js';
import { translateVirtualminHook, type VirtualminPhase } from '../panel/adapters/virtualmin.js';
import type { AdapterResult } from '../panel/adapters/result.js';
import { PANEL_EVENT_TYPES, type PanelEvent } from '../panel/events.js';
import { translatePleskHook } from '../panel/plesk-owner.js';
import { createAccountsRepo } from '../db/accounts.repo.js';
import { createToolRunner, type ToolRunner } from '../install/tools.js';
import { normalizeDomain } from '../provider/spec.js';
import { signBody } from '../core/signature.js';
import { configFromEnv, standaloneConfigFromEnv } from './shared.js';

/**
 * Errors that mean "this process may not write the database", not "the database is broken".
 * SQLite opens a file it cannot write read-only without complaint, so these can come from the
 * open, the WAL set-up, or only from the first write (SQLITE_READONLY and its variants).
 * DATA_INSECURE: a data folder open to others that only its owner may tighten (the plugin does at its start).
 */
const mayNotWrite = (error: unknown) => {
  const code = (error as { code?: string }).code ?? '';
  return (
    ['EACCES', 'EPERM', 'EROFS', 'SQLITE_CANTOPEN', 'SQLITE_PERM', 'DATA_INSECURE'].includes(code) || code.startsWith('SQLITE_READONLY')
  );
};

async function postEvents(config: Config, events: PanelEvent[]): Promise<IngestResult[]> {
  const body = JSON.stringify(events);
  const response = await fetch(`${config.hook.url}/hooks/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wpp-signature': signBody(body, ensurePanelSecret(config)) },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const answer = (await response.json().catch(() => ({}))) as {
    message?: string;
    events?: { id: string; type: PanelEvent['type']; job: number; created: boolean }[];
  };
  if (!response.ok || !answer.events) throw new Error(`the plugin answered ${response.status}: ${answer.message ?? 'no message'}`);
  return answer.events.map((e) => ({ eventId: e.id, type: e.type, jobId: e.job, created: e.created }));
}

/**
 * The plugin's database for one hook run: opened on first use and kept until the run closes it,
 * so reading the plugin's record and queueing the events share one connection (each open is
 * the start check of the data folder, the pragmas and the migrations, on a path the panel
 * waits on). A failed open is kept as well: whoever uses it next meets the same error.
 */
export interface HookDatabase {
  use(): Db;
  close(): void;
}

export function hookDatabase(config: () => Config, open: (config: Config) => Db = openPluginDatabase): HookDatabase {
  let opened: { db: Db } | { error: unknown } | undefined;
  return {
    use() {
      if (opened === undefined) {
        try {
          opened = { db: open(config()) };
        } catch (error) {
          opened = { error };
        }
      }
      if ('error' in opened) throw opened.error;
      return opened.db;
    },
    close() {
      if (opened && 'db' in opened) opened.db.close();
      opened = undefined;
    },
  };
}

/** Runs `fn` on the run's database, or on one of its own (opened with `open`) when no run gives one. */
function withHookDatabase<T>(
  config: Config,
  given: { database?: HookDatabase | undefined; open?: ((config: Config) => Db) | undefined },
  fn: (database: HookDatabase) => T,
): T {
  const database = given.database ?? hookDatabase(() => config, given.open);
  try {
    return fn(database);
  } finally {
    if (!given.database) database.close();
  }
}

/**
 * Writes the events into the jobs table, or posts them when this process cannot open it.
 * `mayPost: false` (cPanel: every hook wpp registers runs as root) refuses the post instead:
 * a process that may not write the database may not read the panel secret either, so the
 * signed post could never work there, and the message says what to fix.
 */
export async function deliverEvents(
  config: Config,
  events: PanelEvent[],
  options: { database?: HookDatabase; open?: (config: Config) => Db; mayPost?: boolean } = {},
): Promise<IngestResult[]> {
  if (events.length === 0) return [];
  const written = withHookDatabase(config, options, (database) => {
    try {
      return { results: ingestEvents(createJobsRepo(database.use()), events, config.worker.maxAttempts) };
    } catch (error) {
      if (!mayNotWrite(error)) throw error;
      return { error };
    }
  });
  if (!('error' in written)) return written.results;
  const { error } = written;
  if (options.mayPost === false) {
    throw new Error(
      `this process (uid ${process.getuid?.() ?? '?'}) may not write the plugin's database: cPanel runs wpp's hooks as root; is the hook registered with another user? (${(error as Error).message})`,
      { cause: error },
    );
  }
  // Nothing was written (ingest is one transaction): hand the events to the running plugin.
  return postEvents(config, events);
}

/**
 * Keeps a Plesk event whose owner Plesk could not name yet as a `panel.owner` job, which the
 * worker (as root) or the root timer tries again until Plesk names the owner. The same event
 * kept twice in one minute (a handler run twice) is one job.
 */
export function queueOwnerLookup(config: Config, lookup: OwnerLookup, database?: HookDatabase): { jobId: number; created: boolean } {
  return withHookDatabase(config, { database }, (opened) => {
    const minute = Math.floor(Date.parse(lookup.occurredAt) / 60_000);
    const { job, created } = queueJob(createJobsRepo(opened.use()), {
      kind: 'panel.owner',
      dedupeKey: `owner:${lookup.panel}:${lookup.event}:${lookup.domain.toLowerCase()}:${minute}`,
      account: null,
      domain: lookup.domain.toLowerCase(),
      payload: lookup,
      maxAttempts: config.worker.maxAttempts,
    });
    return { jobId: job.id, created };
  });
}

/** The domains of an account's active websites, from the plugin's database (the addon's hidden subdomain, modifyacct). */
function activeWebsitesOf(database: HookDatabase, account: string): string[] {
  let db: Db;
  try {
    db = database.use();
  } catch {
    // Delivering the events will say why the database cannot be opened.
    return [];
  }
  return createAccountsRepo(db)
    .websitesOf(account)
    .filter((website) => website.state === 'active')
    .map((website) => website.domain);
}

/** The account the plugin has `domain` under, from its database (a Plesk removal names no owner). */
function websiteAccountIn(database: HookDatabase, domain: string): string | undefined {
  const normalized = normalizeDomain(domain);
  if (normalized === null) return undefined;
  return createAccountsRepo(database.use()).getWebsite(normalized)?.account;
}

const describeResults = (results: IngestResult[]) =>
  results.map((r) => `${r.type} ${r.created ? 'queued' : 'already queued'} (job ${r.jobId})`).join('; ');

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** What one hook run takes from outside: its settings, the panel's tools, its standard input, how it opens the plugin's database. */
export interface HookRun {
  config: () => Config;
  tools: ToolRunner;
  stdin: () => Promise<string>;
  open: (config: Config) => Db;
}

/** A hook as panels run it: the settings of the environment, the real tools ('/': a hook runs as root), the process's stdin. */
const processHookRun = (): HookRun => ({ config: configFromEnv, tools: createToolRunner('/'), stdin: readStdin, open: openPluginDatabase });

/** A hook as commander read it: cPanel's --describe, the Plesk event or DirectAdmin hook name, emit's command line. */
export type HookCall =
  | { panel: 'cpanel'; describe: boolean }
  | { panel: 'plesk' | 'directadmin'; name: string }
  | { panel: 'virtualmin'; phase: VirtualminPhase }
  | { panel: 'emit'; args: string[] };

/**
 * How a hook answers its panel: what success and failure print, and which exit code a failure
 * gets. Each panel reads a hook's output and exit code its own way.
 */
function hookAnswer(call: HookCall) {
  const { panel } = call;
  /**
   * cPanel shows a hook's message to the customer, so success is `1` alone. A failure is `0`
   * and its reason, except for a payload at `pre` (an install before 0.4.0 registered account
   * removal there): killacct runs such hooks blocking and stops the termination on a `0`, and a
   * wpp outage must never do that. Its reason goes to standard error, which cPanel logs.
   */
  let cpanelBlocking = false;
  /**
   * DirectAdmin reports the whole set failed when a post hook exits non-zero, though the
   * account or domain was made: a post hook wpp cannot take exits 0 and says why on standard
   * error (DirectAdmin keeps a script's output in its task log).
   */
  const directadminPost = call.panel === 'directadmin' && call.name.trim().replace(/\.sh$/, '').endsWith('_post');
  /**
   * Virtualmin aborts the user's action when its pre-change command fails; a failing post
   * command is only printed. So a pre call always exits 0, whatever happens.
   */
  const virtualminPre = call.panel === 'virtualmin' && call.phase === 'pre';
  const print =
    panel === 'cpanel'
      ? (ok: boolean, message: string) => {
          if (ok) console.log('1');
          else if (cpanelBlocking) {
            console.log('1');
            console.error(`wpp hook cpanel: ${message}`);
          } else console.log(`0 ${message}`);
        }
      : (ok: boolean, message: string) =>
          ok
            ? console.log(message)
            : console.error(`wpp hook ${panel}: ${message}${directadminPost ? ' (the panel action itself went on)' : ''}`);

  return {
    print,
    failedExit: () => (cpanelBlocking || directadminPost || virtualminPre ? 0 : 1),
    /** Known once the cPanel payload is read: whether its stage blocks the panel's action. */
    setCpanelBlocking(blocking: boolean): void {
      cpanelBlocking = blocking;
    },
  };
}

/** Runs one hook; returns the process exit code. Output is one line, as panels expect. It opens the plugin's database at most once. */
export async function runHook(call: HookCall, run: HookRun = processHookRun()): Promise<number> {
  const database = hookDatabase(run.config, run.open);
  try {
    return await answerHook(call, run, database);
  } finally {
    database.close();
  }
}

async function answerHook(call: HookCall, run: HookRun, database: HookDatabase): Promise<number> {
  const { panel } = call;
  const { print, failedExit, setCpanelBlocking } = hookAnswer(call);

  let result: AdapterResult;
  switch (call.panel) {
    case 'cpanel': {
      if (call.describe) {
        console.log(JSON.stringify(describeCpanelHooks(standaloneConfigFromEnv().hook.cpanelCommand), null, 2));
        return 0;
      }
      let input: unknown;
      try {
        input = JSON.parse(await run.stdin());
      } catch {
        print(false, 'stdin is not JSON: cPanel passes the hook payload as one JSON object');
        return 1;
      }
      setCpanelBlocking((input as { context?: { stage?: unknown } } | null)?.context?.stage === 'pre');
      // The real whmapi1: a hook runs as root with the environment cPanel gives it, no setting moves the tool.
      result = await readCpanelHook(
        input,
        { domainsOf: (user) => cpanelDomainsOf(run.tools, user), packageProtection: (plan) => cpanelPackageProtection(run.tools, plan) },
        { websitesOf: (account) => activeWebsitesOf(database, account) },
      );
      break;
    }
    case 'plesk': {
      // The real /usr/sbin/plesk: no setting moves it, since a handler runs as root with an environment Plesk builds.
      const plesk = await translatePleskHook(call.name, process.env, {
        tools: run.tools,
        websiteAccount: (domain) => websiteAccountIn(database, domain),
      });
      if (plesk.pending) {
        try {
          const kept = queueOwnerLookup(run.config(), plesk.pending, database);
          print(true, `${plesk.note} (job ${kept.jobId}${kept.created ? '' : ', already kept'})`);
          return 0;
        } catch (error) {
          print(false, `could not keep the event: ${(error as Error).message}`);
          return failedExit();
        }
      }
      result = plesk;
      break;
    }
    case 'directadmin':
      // A restore and a renamed domain also read the user's files, where DirectAdmin keeps them ('/': a hook runs as root).
      result = await translateDirectAdminHookWithFiles(call.name, process.env, run.tools);
      break;
    case 'virtualmin':
      result = translateVirtualminHook(call.phase, process.env);
      break;
    case 'emit':
      result = translateEmit(call.args);
      break;
  }

  if (!result.ok) {
    const details = result.details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ');
    print(false, details && !result.error.includes(details) ? `${result.error} (${details})` : result.error);
    return failedExit();
  }
  if (result.events.length === 0) {
    print(true, result.note);
    return 0;
  }
  try {
    const config = run.config();
    print(true, describeResults(await deliverEvents(config, result.events, { database, mayPost: panel !== 'cpanel' })));
    return 0;
  } catch (error) {
    print(false, `could not queue the event: ${(error as Error).message}`);
    return failedExit();
  }
}

type EmitOption = (typeof EMIT_OPTIONS)[number];
/** The value name and help of each field the emit adapter takes: typed, so a new field cannot go undeclared. */
const EMIT_HELP: Record<EmitOption, [string, string]> = {
  account: ['<name>', 'the panel account (every type)'],
  email: ['<address>', "the account's e-mail address"],
  domain: ['<domain>', 'the domain (domain.*, subdomain.*)'],
  subdomain: ['<name>', 'the subdomain (subdomain.*)'],
  plan: ['<name>', "the account's plan (plan.changed)"],
  ip: ['<address>', "the website's IP address"],
  id: ['<key>', 'idempotency key (derived from the event when absent)'],
  'previous-account': ['<name>', "the account's name before (account.renamed)"],
  reseller: ['<name>', 'the reseller who owns the account, "" for the host\'s own (account.created, account.transferred)'],
};

export const hookCommand = () => {
  const hook = new Command('hook').description('what a panel runs on an event: queue it as panel events, without waiting on the provider');
  hook
    .command('cpanel')
    .description('cPanel Standardized Hook: the payload as JSON on standard input; prints "1" or "0 <reason>"')
    .option('--describe', 'print the hook list to register (manage_hooks), and nothing else')
    .action(async (options: { describe?: boolean }) => {
      process.exitCode = await runHook({ panel: 'cpanel', describe: options.describe === true });
    });
  hook
    .command('plesk')
    .description('Plesk Event Manager handler: the values come from the NEW_*/OLD_* environment')
    .argument('<event>', PLESK_EVENTS.join(', '))
    .action(async (name: string) => {
      process.exitCode = await runHook({ panel: 'plesk', name });
    });
  hook
    .command('directadmin')
    .description('DirectAdmin hook script: the values come from the environment')
    .argument('<hook>', DIRECTADMIN_HOOKS.join(', '))
    .action(async (name: string) => {
      process.exitCode = await runHook({ panel: 'directadmin', name });
    });
  hook
    .command('virtualmin')
    .description("Virtualmin's change command: the server's VIRTUALSERVER_* values come from the environment; acts after the change only")
    .argument('[phase]', 'post (the post_command, default) or pre (the pre_command: always exits 0, does nothing)', 'post')
    .action(async (phase: string) => {
      if (phase !== 'pre' && phase !== 'post') {
        console.error(`wpp hook virtualmin: the phase is "pre" or "post", not "${phase}"`);
        process.exitCode = 1;
        return;
      }
      process.exitCode = await runHook({ panel: 'virtualmin', phase });
    });
  const emit = hook
    .command('emit')
    .description('any other panel: one event, its fields as options')
    .argument('<type>', PANEL_EVENT_TYPES.join(', '));
  for (const name of EMIT_OPTIONS) emit.option(`--${name} ${EMIT_HELP[name][0]}`, EMIT_HELP[name][1]);
  emit.action(async (type: string, options: Record<string, string | undefined>) => {
    // commander names --previous-account previousAccount.
    const given = (name: EmitOption) => options[name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase())];
    // The emit adapter reads a command line (its panel input, as JSON is cPanel's): the one commander has checked.
    const args = [type, ...EMIT_OPTIONS.flatMap((name) => (given(name) === undefined ? [] : [`--${name}`, given(name) as string]))];
    process.exitCode = await runHook({ panel: 'emit', args });
  });
  return hook;
};
