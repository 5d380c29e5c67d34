/**
 * The locks table's vocabulary, shared by storage and the jobs: the name of the lock `wpp serve`
 * holds, and how a holder reads in a message. Storage (a restore refusing while a serve holds
 * the database) and the job lock of core both need them; neither may import the other's code.
 */
import type { LockHolder } from './db/statistics.repo.js';

/** Held by the one `wpp serve` of a data folder (the locks table, like the sync's lock). */
export const SERVE_LOCK = 'serve';

/** "host web1, pid 1234, since 2026-11-22T12:00:00.000Z" */
export function describeHolder(holder: LockHolder): string {
  const parts = [
    holder.host === null ? null : `host ${holder.host}`,
    holder.pid === null ? null : `pid ${holder.pid}`,
    holder.since === null ? null : `since ${new Date(holder.since).toISOString()}`,
  ].filter((part) => part !== null);
  return parts.length > 0 ? parts.join(', ') : `until ${new Date(holder.expiresAt).toISOString()}`;
}
