/**
 * This server's link to the fleet database (docs/fleet.md): opened in the background by the
 * long-running server (`wpp serve`), never by a hook or a one-shot command, and never waited
 * for. Until the database has been reached (it is down, or not created yet), `pool()` is null
 * and the server works alone; the link tries again every `retryMs` and, once in, registers the
 * server (fleet_servers). After that the pg pool reconnects by itself: a query made while the
 * database is down fails, and its caller keeps what it meant to send (the outbox) or goes on
 * without it (the budget falls back to the server's own pacer).
 */
import type pg from 'pg';
import { describeError } from '../errors.js';
import type { ServerIdentity } from '../core/server-identity.js';
import { openFleetDatabase, type FleetDatabase, type FleetDatabaseOptions } from './database.js';
import { recordFleetServer } from './servers.js';

export interface FleetLinkLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface FleetLinkOptions {
  databaseUrl: string;
  identity: ServerIdentity;
  logger: FleetLinkLogger;
  now?: () => number;
  /** How long after a failed attempt the next is made. Default 30 s. */
  retryMs?: number;
  migrationsDir?: FleetDatabaseOptions['migrationsDir'];
}

export interface FleetLink {
  /** The pool once the database was reached (and this server registered); null until then. */
  pool(): pg.Pool | null;
  /** This server in the fleet: its id and name. */
  readonly identity: ServerIdentity;
  /** Resolves when the link is in (for tests and the doctor); never rejects. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_RETRY_MS = 30_000;

/** Starts connecting at once; returns without waiting. */
export function connectFleet(options: FleetLinkOptions): FleetLink {
  const { databaseUrl, identity, logger } = options;
  const now = options.now ?? Date.now;
  const retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
  let database: FleetDatabase | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let attempt: Promise<void> | undefined;
  let markReady: () => void = () => {};
  const readiness = new Promise<void>((resolve) => (markReady = resolve));
  let warnedDown = false;

  const tryOpen = async (): Promise<void> => {
    let opened: FleetDatabase | undefined;
    try {
      opened = await openFleetDatabase(databaseUrl, {
        ...(options.migrationsDir ? { migrationsDir: options.migrationsDir } : {}),
        onIdleError: (message) => logger.warn({ reason: message }, 'fleet database connection lost: the pool reconnects'),
      });
      await recordFleetServer(opened.pool, identity, new Date(now()));
    } catch (error) {
      await opened?.close().catch(() => undefined);
      // Said once while it stays down, not every retry: the operator's log is not flooded.
      if (!warnedDown)
        logger.warn({ reason: describeError(error), retryMs }, 'fleet database unavailable: this server works alone meanwhile');
      warnedDown = true;
      if (!closed) timer = setTimeout(() => void (attempt = tryOpen()), retryMs);
      return;
    }
    if (closed) {
      await opened.close();
      return;
    }
    database = opened;
    logger.info({ serverId: identity.serverId, applied: opened.applied }, 'fleet database joined');
    markReady();
  };
  attempt = tryOpen();

  return {
    identity,
    pool: () => database?.pool ?? null,
    ready: () => readiness,
    async close() {
      closed = true;
      clearTimeout(timer);
      await attempt;
      await database?.close();
      database = null;
    },
  };
}
