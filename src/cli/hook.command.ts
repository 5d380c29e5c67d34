/**
 * `wpp hook <panel> ...`: what a panel runs on an event. It translates the panel's input
 * into panel events and writes them into the jobs table, nothing more, so the panel never
 * waits on the provider. Where the hook cannot open the database (a hook running as a
 * panel user), it posts the events, signed, to the plugin's /hooks/events instead.
 */
import { ensurePanelSecret, type Config } from '../config.js';
import { ingestEvents, type IngestResult } from '../core/ingest.js';
import { createJobsRepo } from '../db/jobs.repo.js';
import type { Db } from '../db/open.js';
import { openPluginDatabase } from '../db/plugin-database.js';
import { describeCpanelHooks, translateCpanelHook } from '../panel/adapters/cpanel.js';
import { DIRECTADMIN_HOOKS, translateDirectAdminHook } from '../panel/adapters/directadmin.js';
import { translateEmit } from '../panel/adapters/emit.js';
import { PLESK_EVENTS, translatePleskEvent } from '../panel/adapters/plesk.js';
import type { AdapterResult } from '../panel/adapters/result.js';
import type { PanelEvent } from '../panel/events.js';
import { signBody } from '../core/signature.js';
import { configFromEnv, standaloneConfigFromEnv, UsageError } from './shared.js';

export const hookUsage = `  hook cpanel [--describe]   cPanel Standardized Hook: JSON on stdin; prints "1 <message>" or "0 <message>"
  hook plesk <event>         Plesk Event Manager handler: NEW_*/OLD_* environment
  hook directadmin <hook>    DirectAdmin hook script: environment
  hook emit <type> --account A [--email E] [--domain D] [--subdomain S] [--plan P] [--ip IP] [--id ID]
                             any panel: one event of ${'<type>'} (account.created, domain.added, ...)`;

/**
 * Errors that mean "this process may not write the database", not "the database is broken".
 * SQLite opens a file it cannot write read-only without complaint, so these can come from the
 * open, the WAL set-up, or only from the first write (SQLITE_READONLY and its variants).
 * DATA_INSECURE: a data folder open to others that only its owner may tighten (the plugin does at its start).
 */
const mayNotWrite = (error: unknown) => {
  const code = (error as { code?: string }).code ?? '';
  return ['EACCES', 'EPERM', 'EROFS', 'SQLITE_CANTOPEN', 'SQLITE_PERM', 'DATA_INSECURE'].includes(code) || code.startsWith('SQLITE_READONLY');
};

async function postEvents(config: Config, events: PanelEvent[]): Promise<IngestResult[]> {
  const body = JSON.stringify(events);
  const response = await fetch(`${config.hook.url}/hooks/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wpp-signature': signBody(body, ensurePanelSecret(config)) },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const answer = (await response.json().catch(() => ({}))) as { message?: string; events?: { id: string; type: PanelEvent['type']; job: number; created: boolean }[] };
  if (!response.ok || !answer.events) throw new Error(`the plugin answered ${response.status}: ${answer.message ?? 'no message'}`);
  return answer.events.map((e) => ({ eventId: e.id, type: e.type, jobId: e.job, created: e.created }));
}

/** Writes the events into the jobs table, or posts them when this process cannot open it. */
export async function deliverEvents(config: Config, events: PanelEvent[], open: (config: Config) => Db = openPluginDatabase): Promise<IngestResult[]> {
  if (events.length === 0) return [];
  let db: Db | undefined;
  try {
    db = open(config);
    return ingestEvents(createJobsRepo(db), events, config.worker.maxAttempts);
  } catch (error) {
    if (!mayNotWrite(error)) throw error;
    // Nothing was written (ingest is one transaction): hand the events to the running plugin.
    return postEvents(config, events);
  } finally {
    db?.close();
  }
}

const describeResults = (results: IngestResult[]) =>
  results.map((r) => `${r.type} ${r.created ? 'queued' : 'already queued'} (job ${r.jobId})`).join('; ');

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Runs one hook; returns the process exit code. Output is one line, as panels expect. */
export async function runHook(args: string[]): Promise<number> {
  const [panel, ...rest] = args;
  const print = panel === 'cpanel' ? (ok: boolean, message: string) => console.log(`${ok ? 1 : 0} ${message}`) : (ok: boolean, message: string) => (ok ? console.log(message) : console.error(`wpp hook ${panel}: ${message}`));

  let result: AdapterResult;
  switch (panel) {
    case 'cpanel': {
      if (rest.includes('--describe')) {
        console.log(JSON.stringify(describeCpanelHooks(standaloneConfigFromEnv().hook.cpanelCommand), null, 2));
        return 0;
      }
      if (rest.length > 0) throw new UsageError(`hook cpanel takes its input on stdin (got ${rest.join(' ')})`);
      let input: unknown;
      try {
        input = JSON.parse(await readStdin());
      } catch {
        print(false, 'stdin is not JSON: cPanel passes the hook payload as one JSON object');
        return 1;
      }
      result = translateCpanelHook(input);
      break;
    }
    case 'plesk':
      if (rest.length !== 1) throw new UsageError(`hook plesk takes one event name: ${PLESK_EVENTS.join(', ')}`);
      result = translatePleskEvent(rest[0] as string, process.env);
      break;
    case 'directadmin':
      if (rest.length !== 1) throw new UsageError(`hook directadmin takes one hook name: ${DIRECTADMIN_HOOKS.join(', ')}`);
      result = translateDirectAdminHook(rest[0] as string, process.env);
      break;
    case 'emit':
      result = translateEmit(rest);
      break;
    default:
      throw new UsageError(`Unknown panel "${panel ?? ''}": use cpanel, plesk, directadmin or emit`);
  }

  if (!result.ok) {
    const details = result.details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ');
    print(false, details && !result.error.includes(details) ? `${result.error} (${details})` : result.error);
    return 1;
  }
  if (result.events.length === 0) {
    print(true, result.note);
    return 0;
  }
  try {
    const config = configFromEnv();
    print(true, describeResults(await deliverEvents(config, result.events)));
    return 0;
  } catch (error) {
    print(false, `could not queue the event: ${(error as Error).message}`);
    return 1;
  }
}
