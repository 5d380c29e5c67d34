/**
 * The fleet view (issue 23, docs/fleet.md "The fleet view"): what a server publishes to the
 * fleet database, and one round of sending it. The outbox is this server's SQLite (written by
 * triggers in the transaction of each change, migration 028), the sink the fleet database:
 * both come in as parameters. A round sends first, then forgets what the fleet database
 * committed, so a crash between the two sends it again, which the sink's upserts make harmless.
 */
import type { Page } from '../db/admin-views.repo.js';
import { retryWhileBusy } from '../db/busy.js';
import type { EnforcementAction, PausedBy, ProvisioningFailure, Website } from './types.js';

/** A website as the other servers' pages show it: its state (in the words of core/website-state.ts), usage, limit and forecast. */
export interface PublishedWebsite {
  domain: string;
  account: string;
  state: Website['state'];
  desiredStatus: Website['desiredStatus'];
  pausedBy: PausedBy | null;
  providerStatus: string | null;
  provisionedAt: number | null;
  provisioningFailure: ProvisioningFailure | null;
  /** Hits this period, as the last enforcement pass counted them. */
  usage: number;
  limit: number | null;
  level: 'none' | 'ok' | 'near' | 'over';
  periodEnd: number | null;
  /** When the website's own limit is reached at its current rate (the adaptive sync's forecast); null: not this period. */
  forecastAt: number | null;
}

/** One marker of the outbox: a website whose latest state is to be sent (`website` null: the website is gone). */
export interface OutboxWebsite {
  domain: string;
  version: number;
  website: PublishedWebsite | null;
}

export type PublishedAction = Pick<EnforcementAction, 'at' | 'account' | 'domain' | 'action' | 'actor' | 'reason' | 'usage'> & {
  /** enforcement_actions.action_key: the same action is one row in the fleet's log, however often it is sent. */
  key: string;
  limit: number | null;
};

export interface RunHealth {
  at: number;
  status: string;
  read: number | null;
  failed: number | null;
}

export interface DoctorSummary {
  at: number;
  status: 'ok' | 'warn' | 'fail';
  checks: { name: string; status: string; detail: string }[];
}

/** The server's health as it reports it at each round: also its heartbeat (last seen). */
export interface ServerHealth {
  websites: number;
  lastSync: RunHealth | null;
  lastEnforce: RunHealth | null;
  providerReachedAt: number | null;
  doctor: DoctorSummary | null;
  /** Markers still in the outbox after this round: how far behind the fleet's copy is. */
  outbox: number;
}

/** This server's side: the SQLite outbox (db/fleet-outbox.repo.ts). */
export interface FleetOutbox {
  pendingWebsites(limit: number): OutboxWebsite[];
  /** Forgets the markers sent, unless a later change bumped their version meanwhile. */
  websitesSent(sent: readonly Pick<OutboxWebsite, 'domain' | 'version'>[]): void;
  /** Actions of the log after `afterId`, oldest first. */
  actionsAfter(afterId: number, limit: number): { id: number; action: PublishedAction }[];
  actionsSentId(): number;
  actionsSent(throughId: number): void;
  health(): Omit<ServerHealth, 'outbox'>;
  pendingCount(): number;
}

/** The fleet database's side (fleet/view.ts): idempotent writes keyed by server id and domain, or action key. */
export interface FleetSink {
  websites(serverId: string, rows: readonly { domain: string; website: PublishedWebsite | null }[], at: number): Promise<void>;
  actions(serverId: string, actions: readonly PublishedAction[]): Promise<void>;
  health(serverId: string, health: ServerHealth, at: number): Promise<void>;
}

export interface PublishRound {
  websites: number;
  actions: number;
  /** Markers left (more than one round's batches, or changes made during the round). */
  left: number;
}

export interface PublishOptions {
  serverId: string;
  now: () => number;
  /** Rows per write to the fleet database. Default 500. */
  batchSize?: number;
  /** Batches of each kind per round, so one round after a long outage does not hold the link for minutes. Default 20. */
  maxBatches?: number;
}

/** One round: websites (oldest change first), then actions (in log order), then the health; each batch committed there before it is forgotten here. */
export async function publishRound(outbox: FleetOutbox, sink: FleetSink, options: PublishOptions): Promise<PublishRound> {
  const batchSize = options.batchSize ?? 500;
  const maxBatches = options.maxBatches ?? 20;
  let websites = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const pending = outbox.pendingWebsites(batchSize);
    if (pending.length === 0) break;
    await sink.websites(options.serverId, pending, options.now());
    // Another process's write may hold the lock a moment: what was sent is forgotten once it is free (resent, harmless, if the process dies meanwhile).
    await retryWhileBusy(() => outbox.websitesSent(pending));
    websites += pending.length;
    if (pending.length < batchSize) break;
  }
  let actions = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const next = outbox.actionsAfter(outbox.actionsSentId(), batchSize);
    const last = next.at(-1);
    if (!last) break;
    await sink.actions(
      options.serverId,
      next.map((row) => row.action),
    );
    await retryWhileBusy(() => outbox.actionsSent(last.id));
    actions += next.length;
    if (next.length < batchSize) break;
  }
  const left = outbox.pendingCount();
  await sink.health(options.serverId, { ...outbox.health(), outbox: left }, options.now());
  return { websites, actions, left };
}

/** A server of the fleet as the "All servers" page lists it. */
export interface FleetServerRow {
  serverId: string;
  name: string;
  registeredAt: number;
  /** Its last round (or registration): a server not seen for long is marked stale. */
  lastSeenAt: number;
  health: (ServerHealth & { reportedAt: number }) | null;
  /** Websites of it in the fleet database. */
  websites: number;
}

export interface FleetWebsiteRow extends PublishedWebsite {
  serverId: string;
  serverName: string;
  /** When its server published this state. */
  updatedAt: number;
}

export interface FleetActionRow extends PublishedAction {
  serverId: string;
  serverName: string;
}

/** What the "All servers" pages read from the fleet database (fleet/view.ts); every call rejects while it is down. */
export interface FleetViewReader {
  servers(): Promise<FleetServerRow[]>;
  searchWebsites(request: { q?: string; page?: number; pageSize?: number }): Promise<Page<FleetWebsiteRow>>;
  enforcementLog(request: { page?: number; pageSize?: number }): Promise<Page<FleetActionRow>>;
}

/** A server whose last round is older than this is marked stale: ten missed rounds of the publisher (every 30 s). */
export const FLEET_STALE_MS = 5 * 60_000;
