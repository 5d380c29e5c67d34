/**
 * The plugin's HTTP server (`wpp serve`): the express app on WPP_HOST:WPP_PORT, its routes
 * wired to the job queue. A request waits about a second for another process's write lock
 * without blocking the server (retryWhileBusy), then answers 503.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { JobQueue } from '../core/job-queue.js';
import { REQUEST_BUSY_RETRY, retryWhileBusy } from '../db/busy.js';
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { Lifecycle } from '../lifecycle.js';
import { clientProblemBody, createApp } from './app.js';
import { listen } from './listen.js';

export interface PluginServerDeps {
  config: Config;
  panelSecret: string;
  queue: Pick<JobQueue, 'ingestEvents' | 'refreshWebsites'>;
  accounts: Pick<AccountsRepo, 'getWebsiteByTokenHash' | 'getAccount'>;
  logger: Logger;
  life: Lifecycle;
  /** HTTP server timeouts, for tests (see listen.ts for the defaults). */
  timeouts?: { headersMs?: number; requestMs?: number } | undefined;
}

/** Listens, and closes with the plugin; returns the URL with the port actually bound. */
export async function startPluginServer({
  config,
  panelSecret,
  queue,
  accounts,
  logger,
  life,
  timeouts,
}: PluginServerDeps): Promise<string> {
  const app = createApp({
    logger,
    hooks: { panelSecret, ingest: (events) => retryWhileBusy(() => queue.ingestEvents(events), REQUEST_BUSY_RETRY) },
    callbacks: {
      findWebsiteByTokenHash: (hash) => accounts.getWebsiteByTokenHash(hash),
      signingKeyFor: (website) => accounts.getAccount(website.account)?.providerApiKey ?? null,
      enqueueRefresh: ({ domain, account }) => retryWhileBusy(() => queue.refreshWebsites([{ domain, account }]), REQUEST_BUSY_RETRY),
    },
  });
  const server = await listen(app, {
    host: config.host,
    port: config.port,
    what: 'The plugin',
    setting: 'WPP_HOST and WPP_PORT',
    errorBody: clientProblemBody,
    ...(timeouts ? { timeouts } : {}),
  });
  life.onClose(() => server.close());
  return server.url;
}
