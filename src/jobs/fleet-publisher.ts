/**
 * The fleet view's publisher in `wpp serve` (docs/fleet.md "The fleet view"): every `everyMs`
 * while the fleet database is reached, one round of core/fleet-view.ts (the outbox's websites
 * and actions, then the health, which is also the server's heartbeat). While it is down a round
 * fails and the outbox keeps everything; it is said once in the log, and once more when it is
 * back. A round that left markers behind (an outage's backlog) is followed by the next a second later.
 */
import type { Logger } from 'pino';
import { describeError } from '../errors.js';
import { publishRound, type FleetOutbox, type FleetSink, type PublishOptions, type PublishRound } from '../core/fleet-view.js';

export interface FleetPublisherDeps extends PublishOptions {
  outbox: FleetOutbox;
  sink: FleetSink;
  /** Whether the fleet database has been reached (FleetLink.pool() !== null). */
  linked: () => boolean;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Told of each round that reached the fleet database (the pages show when it last answered). */
  onAnswered?: (at: number) => void;
  /** Between rounds. Default 30 s. */
  everyMs?: number;
}

export interface FleetPublisher {
  /** One round now (tests; the loop runs them by itself). Never rejects: a failure is logged and reported as null. */
  runOnce(): Promise<PublishRound | null>;
  stop(): Promise<void>;
}

export const FLEET_PUBLISH_EVERY_MS = 30_000;

export function startFleetPublisher(deps: FleetPublisherDeps): FleetPublisher {
  const everyMs = deps.everyMs ?? FLEET_PUBLISH_EVERY_MS;
  let failing = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<PublishRound | null> = Promise.resolve(null);

  // For the log only: a database this process cannot read right now must not stop the loop.
  const outboxSize = () => {
    try {
      return deps.outbox.pendingCount();
    } catch {
      return undefined;
    }
  };
  const round = async (): Promise<PublishRound | null> => {
    if (!deps.linked()) return null;
    try {
      const result = await publishRound(deps.outbox, deps.sink, deps);
      deps.onAnswered?.(deps.now());
      if (failing) deps.logger.info({ left: result.left }, 'fleet database answers again: publishing the outbox');
      failing = false;
      return result;
    } catch (error) {
      if (!failing)
        deps.logger.warn(
          { reason: describeError(error), outbox: outboxSize() },
          'fleet view not published: the outbox keeps it until the fleet database answers',
        );
      failing = true;
      return null;
    }
  };
  // One round at a time: runOnce during the loop's round waits for it, then runs its own.
  const runOnce = () => (running = running.then(round));
  const loop = async () => {
    const result = await runOnce();
    if (stopped) return;
    // What one round could not send goes on after a second, not after the whole interval (but never in a busy loop).
    timer = setTimeout(() => void loop(), result && result.left > 0 ? Math.min(everyMs, 1000) : everyMs);
  };
  timer = setTimeout(() => void loop(), 0);

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
