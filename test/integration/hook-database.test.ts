/**
 * One `wpp hook cpanel` run opens the plugin's database once: the hooks that read the
 * plugin's own record (an addon domain's hidden subdomain, the websites a new main domain
 * replaces) and the queueing of the events share one connection. Each open is the start check
 * of the data folder and its files, the pragmas and the migrations, on a path cPanel waits on.
 * The hook runs in-process as the command runs it, with the opener counted, a real database in
 * a temporary folder, and a fake whmapi1 printing a recorded get_domain_info.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runHook, type HookRun } from '../../src/cli/hook.command.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createAccountsRepo } from '../../src/db/accounts.repo.js';
import { createJobsRepo } from '../../src/db/jobs.repo.js';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import { createToolRunner } from '../../src/install/tools.js';
import { WHMAPI1 } from '../../src/panel/listings/whmapi.js';
import { fakeTool } from '../helpers/fake-tools.js';
import { LISTINGS } from '../helpers/panel-listings.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const payload = (name: string) => readFileSync(new URL(`../fixtures/panels/cpanel/${name}.json`, import.meta.url), 'utf8');

let root: string;
let config: Config;
beforeEach(() => {
  root = createTempDir('wpp-hook-database-');
  config = loadConfig({ WPP_DATA_DIR: `${root}/data`, WPP_PANEL_SECRET: 'hook-test-secret-0123456789', WPP_LOG_LEVEL: 'silent' });
  // alice with her main website, as the plugin knows her.
  const db = openPluginDatabase(config);
  try {
    const accounts = createAccountsRepo(db);
    accounts.saveAccount({
      account: 'alice',
      email: null,
      plan: null,
      providerUserId: 'alice@panel.example',
      providerApiKey: null,
      state: 'active',
    });
    accounts.saveWebsite({
      domain: 'alice-shop.example',
      account: 'alice',
      subdomains: ['www', 'buecher'],
      originIps: ['203.0.113.10'],
      state: 'active',
      desiredStatus: 'online',
      pausedBy: null,
      providerStatus: null,
      providerCheckedAt: null,
      callbackTokenHash: 'hash-alice-shop',
    });
  } finally {
    db.close();
  }
});
afterEach(() => {
  vi.restoreAllMocks();
  removeTempDir(root);
});

/** Runs `wpp hook cpanel` on the payload; returns its exit code, what it printed, and how often it opened the database. */
async function cpanelHook(name: string, listing?: string) {
  if (listing) fakeTool(root, WHMAPI1, { script: `cat '${LISTINGS}cpanel/${listing}'` });
  let opens = 0;
  const run: HookRun = {
    config: () => config,
    tools: createToolRunner(root),
    stdin: () => Promise.resolve(payload(name)),
    open: (given) => {
      opens++;
      return openPluginDatabase(given);
    },
  };
  const printed = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  const code = await runHook({ panel: 'cpanel', describe: false }, run);
  const output = printed.mock.calls.map((call) => call.join(' '));
  printed.mockRestore();
  return { code, output, opens };
}

function queued(): string[] {
  const db = openPluginDatabase(config);
  try {
    return createJobsRepo(db)
      .list({ limit: 100 })
      .map((job) => job.payload as { type: string; domain?: string; subdomain?: string })
      .map((event) => [event.type, event.domain, event.subdomain].filter(Boolean).join(' '))
      .sort();
  } finally {
    db.close();
  }
}

describe('a cPanel hook run opens the database once', () => {
  it("an addon domain: reads the account's websites for the hidden subdomain, and queues, on one connection", async () => {
    expect(await cpanelHook('domain-park-addon')).toEqual({ code: 0, output: ['1'], opens: 1 });
    expect(queued()).toEqual(['domain.added buecher-alice.example', 'subdomain.removed alice-shop.example buecher']);
  });

  it('a new main domain: reads the websites under both names, and queues the old one removed, on one connection', async () => {
    expect(await cpanelHook('accounts-modify-domain', 'get_domain_info-modified.json')).toEqual({ code: 0, output: ['1'], opens: 1 });
    expect(queued()).toEqual(['domain.added alice-new.example', 'domain.removed alice-shop.example']);
  });

  it('a hook that needs no record opens it once, to queue', async () => {
    expect(await cpanelHook('accounts-suspendacct')).toEqual({ code: 0, output: ['1'], opens: 1 });
  });
});
