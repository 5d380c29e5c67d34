/**
 * The fleet view's assembly (docs/fleet.md "The fleet view"), for `wpp serve` only: with the
 * fleet link, the outbox's triggers on and the publisher running, and the "All servers" pages'
 * reader; without it, the triggers off and the outbox emptied (a server that left the fleet
 * keeps nothing for it). Other processes of the data folder leave the switch alone: they only
 * write the changes the triggers queue.
 */
import type { Logger } from 'pino';
import type { FleetViewReader } from '../core/fleet-view.js';
import { retryWhileBusy } from '../db/busy.js';
import { createFleetOutboxRepo } from '../db/fleet-outbox.repo.js';
import type { Db } from '../db/open.js';
import type { FleetLink } from '../fleet/link.js';
import { createFleetSink, createFleetViewReader } from '../fleet/view.js';
import { startFleetPublisher } from '../jobs/fleet-publisher.js';
import { describeError } from '../errors.js';
import type { Lifecycle } from '../lifecycle.js';

/** What the "All servers" pages are given: the reader, and when the fleet database last answered this process (null: not since it started). */
export interface FleetViewPages {
  reader: FleetViewReader;
  lastAnsweredAt(): number | null;
}

export function wireFleetView(deps: {
  serves: boolean;
  fleet: FleetLink | undefined;
  db: Db;
  logger: Logger;
  life: Lifecycle;
  now: () => number;
  /** Between publishing rounds (tests make it short). */
  publishEveryMs?: number | undefined;
}): FleetViewPages | undefined {
  if (!deps.serves) return undefined;
  const outbox = createFleetOutboxRepo(deps.db, deps.now);
  const { fleet } = deps;
  // The switch is a write (the triggers, and the first time every website): another process may hold the lock at
  // the start, so it is retried in the background; the publisher waits for it.
  const switching = retryWhileBusy(() => {
    if (fleet) return outbox.startPublishing();
    if (outbox.publishing()) outbox.stopPublishing();
    return false;
  });
  let switched = false;
  void switching.then(
    (queuedAll) => {
      switched = true;
      if (queuedAll) deps.logger.info({ queued: outbox.pendingCount() }, 'fleet view: every website queued for the fleet database');
    },
    (error: unknown) => deps.logger.warn({ reason: describeError(error) }, 'fleet view: the outbox could not be switched'),
  );
  // The database closes last: the switch is let finish (or fail) before.
  deps.life.onClose(() =>
    switching.then(
      () => undefined,
      () => undefined,
    ),
  );
  if (!fleet) return undefined;
  let lastAnsweredAt: number | null = null;
  const answered = (at: number) => void (lastAnsweredAt = Math.max(lastAnsweredAt ?? 0, at));
  const publisher = startFleetPublisher({
    outbox,
    sink: createFleetSink(() => fleet.pool()),
    linked: () => switched && fleet.pool() !== null,
    serverId: fleet.identity.serverId,
    now: deps.now,
    logger: deps.logger.child({ part: 'fleet-view' }),
    onAnswered: answered,
    ...(deps.publishEveryMs ? { everyMs: deps.publishEveryMs } : {}),
  });
  // Stopped before the link closes (closing runs in reverse order of registration: the link was registered first).
  deps.life.onClose(() => publisher.stop());
  const reader = createFleetViewReader(() => fleet.pool());
  // Every page read that the database answers counts as an answer too.
  const noted =
    <A extends unknown[], R>(read: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const result = await read(...args);
      answered(deps.now());
      return result;
    };
  return {
    reader: {
      servers: noted(reader.servers),
      searchWebsites: noted(reader.searchWebsites),
      enforcementLog: noted(reader.enforcementLog),
    },
    lastAnsweredAt: () => lastAnsweredAt,
  };
}
