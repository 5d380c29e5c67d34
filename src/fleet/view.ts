/**
 * The fleet view in the fleet database (fleet migration 004, docs/fleet.md "The fleet view"):
 * the writes of a server's publisher (each batch one statement, an upsert keyed by the server's
 * id and the domain or the action's key, so a batch sent again changes nothing) and the reads
 * of the "All servers" pages. Every call rejects while the database is down: the caller keeps
 * its outbox, or its page says so.
 */
import type pg from 'pg';
import type {
  FleetActionRow,
  FleetServerRow,
  FleetSink,
  FleetViewReader,
  FleetWebsiteRow,
  PublishedAction,
  PublishedWebsite,
  ServerHealth,
} from '../core/fleet-view.js';
import { pageOf, pageWindow } from '../db/paging.js';
import { withFleetClient } from './client.js';

/**
 * How long a write of the publisher, or a read of a page, waits for the database's answer. A
 * database that accepts connections but does not answer (stopped, its disk full, a network
 * gone quiet) must not hold a page or the publisher's loop for ever: the query fails, its
 * connection is dropped (pg-pool discards a client released with an error), and the caller
 * keeps its outbox or says the database does not answer.
 */
export const WRITE_TIMEOUT_MS = 30_000;
export const READ_TIMEOUT_MS = 5_000;
const timed = (text: string, values: unknown[], ms: number): pg.QueryConfig => ({ text, values, query_timeout: ms }) as pg.QueryConfig;

const at = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms));
const ms = (value: unknown): number | null => (value === null || value === undefined ? null : new Date(value as string | Date).getTime());
const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** The publisher's writes. */
export function createFleetSink(pool: () => pg.Pool | null): FleetSink {
  const live = () => {
    const current = pool();
    if (!current) throw new Error('the fleet database has not been reached yet');
    return current;
  };
  return {
    async websites(serverId, rows, now) {
      const gone = rows.filter((row) => row.website === null).map((row) => row.domain);
      const kept = rows.flatMap((row) => (row.website ? [row.website] : []));
      // The connection is dropped after a failure, not reused: PostgreSQL rolls its transaction back, and one that timed out may still be busy.
      await withFleetClient(live(), async (client) => {
        await client.query(timed('BEGIN', [], WRITE_TIMEOUT_MS));
        if (gone.length > 0)
          await client.query(
            timed('DELETE FROM fleet_websites WHERE server_id = $1 AND domain = ANY($2)', [serverId, gone], WRITE_TIMEOUT_MS),
          );
        if (kept.length > 0) await client.query(timed(UPSERT_WEBSITES, [serverId, at(now), ...websiteColumns(kept)], WRITE_TIMEOUT_MS));
        await client.query(timed('COMMIT', [], WRITE_TIMEOUT_MS));
      });
    },
    async actions(serverId, actions) {
      if (actions.length === 0) return;
      await live().query(timed(INSERT_ACTIONS, [serverId, ...actionColumns(actions)], WRITE_TIMEOUT_MS));
    },
    async health(serverId, health, now) {
      await live().query(timed(UPSERT_HEALTH, healthValues(serverId, health, now), WRITE_TIMEOUT_MS));
      // The server is seen: the same clock as its registration (fleet/servers.ts).
      await live().query(
        timed(
          'UPDATE fleet_servers SET last_seen_at = GREATEST(last_seen_at, $2) WHERE server_id = $1',
          [serverId, at(now)],
          WRITE_TIMEOUT_MS,
        ),
      );
    },
  };
}

const UPSERT_WEBSITES = `
  INSERT INTO fleet_websites (server_id, updated_at, domain, account, state, desired_status, paused_by, provider_status, provisioned_at,
    provisioning_error_code, provisioning_error, usage, website_limit, level, period_end, forecast_at)
  SELECT $1, $2, * FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::text[],
    $11::text[], $12::bigint[], $13::bigint[], $14::text[], $15::timestamptz[], $16::timestamptz[])
  ON CONFLICT (server_id, domain) DO UPDATE SET updated_at = EXCLUDED.updated_at, account = EXCLUDED.account, state = EXCLUDED.state,
    desired_status = EXCLUDED.desired_status, paused_by = EXCLUDED.paused_by, provider_status = EXCLUDED.provider_status,
    provisioned_at = EXCLUDED.provisioned_at, provisioning_error_code = EXCLUDED.provisioning_error_code,
    provisioning_error = EXCLUDED.provisioning_error, usage = EXCLUDED.usage, website_limit = EXCLUDED.website_limit,
    level = EXCLUDED.level, period_end = EXCLUDED.period_end, forecast_at = EXCLUDED.forecast_at
  WHERE fleet_websites.updated_at <= EXCLUDED.updated_at`;

const websiteColumns = (rows: readonly PublishedWebsite[]) => [
  rows.map((w) => w.domain),
  rows.map((w) => w.account),
  rows.map((w) => w.state),
  rows.map((w) => w.desiredStatus),
  rows.map((w) => w.pausedBy),
  rows.map((w) => w.providerStatus),
  rows.map((w) => w.provisionedAt),
  rows.map((w) => w.provisioningFailure?.code ?? null),
  rows.map((w) => w.provisioningFailure?.reason ?? null),
  rows.map((w) => w.usage),
  rows.map((w) => w.limit),
  rows.map((w) => w.level),
  rows.map((w) => at(w.periodEnd)),
  rows.map((w) => at(w.forecastAt)),
];

const INSERT_ACTIONS = `
  INSERT INTO fleet_enforcement_log (server_id, action_key, at, account, domain, action, actor, reason, usage, limit_value)
  SELECT $1, * FROM unnest($2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::bigint[])
  ON CONFLICT (server_id, action_key) DO NOTHING`;

const actionColumns = (actions: readonly PublishedAction[]) => [
  actions.map((a) => a.key),
  actions.map((a) => at(a.at)),
  actions.map((a) => a.account),
  actions.map((a) => a.domain),
  actions.map((a) => a.action),
  actions.map((a) => a.actor),
  actions.map((a) => a.reason),
  actions.map((a) => a.usage),
  actions.map((a) => a.limit),
];

const UPSERT_HEALTH = `
  INSERT INTO fleet_server_health (server_id, reported_at, websites, outbox, last_sync_at, last_sync_status, last_sync_read, last_sync_failed,
    last_enforce_at, last_enforce_status, provider_reached_at, doctor_at, doctor_status, doctor_checks)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
  ON CONFLICT (server_id) DO UPDATE SET reported_at = EXCLUDED.reported_at, websites = EXCLUDED.websites, outbox = EXCLUDED.outbox,
    last_sync_at = EXCLUDED.last_sync_at, last_sync_status = EXCLUDED.last_sync_status, last_sync_read = EXCLUDED.last_sync_read,
    last_sync_failed = EXCLUDED.last_sync_failed, last_enforce_at = EXCLUDED.last_enforce_at,
    last_enforce_status = EXCLUDED.last_enforce_status, provider_reached_at = EXCLUDED.provider_reached_at,
    doctor_at = EXCLUDED.doctor_at, doctor_status = EXCLUDED.doctor_status, doctor_checks = EXCLUDED.doctor_checks
  WHERE fleet_server_health.reported_at <= EXCLUDED.reported_at`;

const healthValues = (serverId: string, h: ServerHealth, now: number) => [
  serverId,
  at(now),
  h.websites,
  h.outbox,
  at(h.lastSync?.at),
  h.lastSync?.status ?? null,
  h.lastSync?.read ?? null,
  h.lastSync?.failed ?? null,
  at(h.lastEnforce?.at),
  h.lastEnforce?.status ?? null,
  at(h.providerReachedAt),
  at(h.doctor?.at),
  h.doctor?.status ?? null,
  h.doctor ? JSON.stringify(h.doctor.checks) : null,
];

/** `LIKE` text that matches `q` literally at the start. */
const prefixPattern = (q: string) => `${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The "All servers" pages' reads. */
export function createFleetViewReader(pool: () => pg.Pool | null): FleetViewReader {
  const query = async (text: string, values: unknown[] = []) => {
    const current = pool();
    if (!current) throw new Error('the fleet database has not been reached yet');
    return (await current.query(timed(text, values, READ_TIMEOUT_MS))).rows as Record<string, unknown>[];
  };
  return {
    async servers() {
      const rows = await query(SERVERS_SQL);
      return rows.map(toServer);
    },
    async searchWebsites(request) {
      const window = pageWindow(request);
      const q = request.q?.trim().toLowerCase() ?? '';
      const pattern = prefixPattern(q);
      // Either index gives its range; a domain matched by both ways is one row.
      const where = `w.domain LIKE $1 OR w.account LIKE $1`;
      const [rows, count] = await Promise.all([
        query(
          `SELECT w.*, s.name AS server_name FROM fleet_websites w LEFT JOIN fleet_servers s ON s.server_id = w.server_id
           WHERE ${where} ORDER BY w.domain, w.server_id LIMIT $2 OFFSET $3`,
          [pattern, window.pageSize, window.offset],
        ),
        query(`SELECT COUNT(*) AS n FROM fleet_websites w WHERE ${where}`, [pattern]),
      ]);
      return pageOf(rows.map(toWebsite), Number(count[0]?.n ?? 0), window);
    },
    async enforcementLog(request) {
      const window = pageWindow(request);
      const [rows, count] = await Promise.all([
        query(
          `SELECT l.*, s.name AS server_name FROM fleet_enforcement_log l LEFT JOIN fleet_servers s ON s.server_id = l.server_id
           ORDER BY l.at DESC, l.id DESC LIMIT $1 OFFSET $2`,
          [window.pageSize, window.offset],
        ),
        query('SELECT COUNT(*) AS n FROM fleet_enforcement_log'),
      ]);
      return pageOf(rows.map(toAction), Number(count[0]?.n ?? 0), window);
    },
  };
}

// The server's own columns last: a server without a health row yet (h.* all null) keeps its id.
const SERVERS_SQL = `
  SELECT h.*, s.server_id, s.name, s.registered_at, s.last_seen_at,
    (SELECT COUNT(*) FROM fleet_websites w WHERE w.server_id = s.server_id) AS websites_published
  FROM fleet_servers s LEFT JOIN fleet_server_health h ON h.server_id = s.server_id
  ORDER BY s.name, s.server_id`;

const toServer = (row: Record<string, unknown>): FleetServerRow => ({
  serverId: row.server_id as string,
  name: row.name as string,
  registeredAt: ms(row.registered_at) ?? 0,
  lastSeenAt: ms(row.last_seen_at) ?? 0,
  websites: Number(row.websites_published ?? 0),
  health:
    row.reported_at === null || row.reported_at === undefined
      ? null
      : {
          reportedAt: ms(row.reported_at) ?? 0,
          websites: Number(row.websites),
          outbox: Number(row.outbox),
          lastSync:
            row.last_sync_at === null
              ? null
              : {
                  at: ms(row.last_sync_at) ?? 0,
                  status: row.last_sync_status as string,
                  read: num(row.last_sync_read),
                  failed: num(row.last_sync_failed),
                },
          lastEnforce:
            row.last_enforce_at === null
              ? null
              : { at: ms(row.last_enforce_at) ?? 0, status: row.last_enforce_status as string, read: null, failed: null },
          providerReachedAt: ms(row.provider_reached_at),
          doctor:
            row.doctor_at === null
              ? null
              : {
                  at: ms(row.doctor_at) ?? 0,
                  status: row.doctor_status as 'ok' | 'warn' | 'fail',
                  checks: (row.doctor_checks ?? []) as { name: string; status: string; detail: string }[],
                },
        },
});

const toWebsite = (row: Record<string, unknown>): FleetWebsiteRow => ({
  serverId: row.server_id as string,
  serverName: (row.server_name as string | null) ?? (row.server_id as string),
  domain: row.domain as string,
  account: row.account as string,
  state: row.state as FleetWebsiteRow['state'],
  desiredStatus: row.desired_status as FleetWebsiteRow['desiredStatus'],
  pausedBy: row.paused_by as FleetWebsiteRow['pausedBy'],
  providerStatus: row.provider_status as string | null,
  provisionedAt: num(row.provisioned_at),
  provisioningFailure:
    row.provisioning_error_code === null
      ? null
      : {
          code: row.provisioning_error_code as string,
          reason: (row.provisioning_error as string | null) ?? '',
          at: ms(row.updated_at) ?? 0,
        },
  usage: Number(row.usage),
  limit: num(row.website_limit),
  level: row.level as FleetWebsiteRow['level'],
  periodEnd: ms(row.period_end),
  forecastAt: ms(row.forecast_at),
  updatedAt: ms(row.updated_at) ?? 0,
});

const toAction = (row: Record<string, unknown>): FleetActionRow => ({
  serverId: row.server_id as string,
  serverName: (row.server_name as string | null) ?? (row.server_id as string),
  key: row.action_key as string,
  at: ms(row.at) ?? 0,
  account: row.account as string,
  domain: row.domain as string | null,
  action: row.action as FleetActionRow['action'],
  actor: row.actor as string,
  reason: row.reason as string,
  usage: num(row.usage),
  limit: num(row.limit_value),
});
