/**
 * The fleet view's outbox in the plugin's SQLite (migration 028, docs/fleet.md "The fleet
 * view"): the websites whose latest state the fleet database has not yet got (written by
 * triggers made while the server is in a fleet, one row per domain), the id up to which the enforcement log was sent, the last
 * `wpp doctor` run, and the server's health read fresh at each round. Storage only: what to
 * send when is core/fleet-view.ts's.
 */
import type { DoctorSummary, FleetOutbox, OutboxWebsite, PublishedAction, PublishedWebsite, RunHealth } from '../core/fleet-view.js';
import { PROVIDER_ANSWERED_AT } from './accounts.repo.js';
import type { Db } from './open.js';

/** Set once this server has queued all its websites for a fleet database: the first start with one queues them all. */
export const FLEET_PUBLISHING = 'fleet.publishing';
const ACTIONS_SENT = 'fleet.actions_sent_id';

/** Queues a domain: a new row, or the next version of its row (its first change's time kept, so the oldest is sent first). */
const queue = (domain: string) =>
  `INSERT INTO fleet_outbox (domain, changed_at) VALUES (${domain}, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
   ON CONFLICT (domain) DO UPDATE SET version = version + 1;`;

/**
 * What the fleet sees of a website, queued in the transaction of the change itself, whichever
 * process makes it (a hook, the worker, enforcement, a sync, a one-shot command): its row
 * (state, statuses, who paused, provisioning), its quota (usage, limit, level, period, as
 * enforcement computes them) and the adaptive sync's forecast. Only real changes queue.
 */
const TRIGGERS: Record<string, string> = {
  fleet_outbox_website_inserted: `AFTER INSERT ON websites BEGIN ${queue('NEW.domain')} END`,
  fleet_outbox_website_updated: `AFTER UPDATE OF account, state, desired_status, paused_by, provider_status, provisioned_at,
    provisioning_error_code ON websites
    WHEN OLD.account IS NOT NEW.account OR OLD.state IS NOT NEW.state OR OLD.desired_status IS NOT NEW.desired_status
      OR OLD.paused_by IS NOT NEW.paused_by OR OLD.provider_status IS NOT NEW.provider_status
      OR OLD.provisioned_at IS NOT NEW.provisioned_at OR OLD.provisioning_error_code IS NOT NEW.provisioning_error_code
    BEGIN ${queue('NEW.domain')} END`,
  fleet_outbox_website_deleted: `AFTER DELETE ON websites BEGIN ${queue('OLD.domain')} END`,
  fleet_outbox_quota_updated: `AFTER UPDATE ON website_quota
    WHEN OLD.usage IS NOT NEW.usage OR OLD.website_limit IS NOT NEW.website_limit OR OLD.level IS NOT NEW.level
      OR OLD.period_end IS NOT NEW.period_end
    BEGIN ${queue('NEW.domain')} END`,
  fleet_outbox_forecast_updated: `AFTER UPDATE OF limit_reached_at ON read_schedule
    WHEN OLD.limit_reached_at IS NOT NEW.limit_reached_at
    BEGIN ${queue('NEW.domain')} END`,
};

interface OutboxRow {
  domain: string;
  version: number;
  account: string | null;
  state: PublishedWebsite['state'] | null;
  desired_status: PublishedWebsite['desiredStatus'];
  paused_by: PublishedWebsite['pausedBy'];
  provider_status: string | null;
  provisioned_at: number | null;
  provisioning_error_code: string | null;
  provisioning_error: string | null;
  provisioning_failed_at: number | null;
  updated_at: number;
  usage: number | null;
  website_limit: number | null;
  level: PublishedWebsite['level'] | null;
  period_end: number | null;
  limit_reached_at: number | null;
  schedule_period_end: number | null;
}

const toOutboxWebsite = (row: OutboxRow): OutboxWebsite => ({
  domain: row.domain,
  version: row.version,
  website:
    row.account === null || row.state === null
      ? null
      : {
          domain: row.domain,
          account: row.account,
          state: row.state,
          desiredStatus: row.desired_status,
          pausedBy: row.paused_by,
          providerStatus: row.provider_status,
          provisionedAt: row.provisioned_at,
          provisioningFailure:
            row.provisioning_error_code === null
              ? null
              : {
                  code: row.provisioning_error_code,
                  reason: row.provisioning_error ?? '',
                  at: row.provisioning_failed_at ?? row.updated_at,
                },
          usage: row.usage ?? 0,
          limit: row.website_limit,
          level: row.level ?? 'none',
          periodEnd: row.period_end,
          // A forecast about another period than the one counted is stale: none.
          forecastAt: row.schedule_period_end !== null && row.schedule_period_end === row.period_end ? row.limit_reached_at : null,
        },
});

const toPublishedAction = (row: Record<string, unknown>): { id: number; action: PublishedAction } => ({
  id: row.id as number,
  action: {
    key: row.action_key as string,
    at: row.at as number,
    account: row.account as string,
    domain: row.domain as string | null,
    action: row.action as PublishedAction['action'],
    actor: row.actor as string,
    reason: row.reason as string,
    usage: row.usage as number | null,
    limit: row.limit_value as number | null,
  },
});

const toRunHealth = (row: Record<string, unknown> | undefined): RunHealth | null =>
  row
    ? {
        at: row.started_at as number,
        status: row.status as string,
        read: row.websites_read as number | null,
        failed: row.websites_failed as number | null,
      }
    : null;

export function createFleetOutboxRepo(db: Db, now: () => number = Date.now) {
  const s = {
    pending: db.prepare<[number], OutboxRow>(
      `SELECT o.domain, o.version, w.account, w.state, w.desired_status, w.paused_by, w.provider_status, w.provisioned_at,
         w.provisioning_error_code, w.provisioning_error, w.provisioning_failed_at, w.updated_at,
         q.usage, q.website_limit, q.level, q.period_end, r.limit_reached_at, r.period_end AS schedule_period_end
       FROM fleet_outbox o
       LEFT JOIN websites w ON w.domain = o.domain
       LEFT JOIN website_quota q ON q.domain = o.domain
       LEFT JOIN read_schedule r ON r.domain = o.domain
       ORDER BY o.changed_at, o.domain LIMIT ?`,
    ),
    forget: db.prepare<[string, number]>('DELETE FROM fleet_outbox WHERE domain = ? AND version = ?'),
    count: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM fleet_outbox'),
    actionsAfter: db.prepare<[number, number], Record<string, unknown>>(
      'SELECT * FROM enforcement_actions WHERE id > ? ORDER BY id LIMIT ?',
    ),
    fact: db.prepare<[string], { value: string }>('SELECT value FROM kv WHERE key = ?'),
    setFact: db.prepare<[string, string, number]>(
      'INSERT INTO kv (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
    ),
    dropFact: db.prepare<[string]>('DELETE FROM kv WHERE key = ?'),
    queueAll: db.prepare<[number]>('INSERT OR IGNORE INTO fleet_outbox (domain, changed_at) SELECT domain, ? FROM websites'),
    clear: db.prepare('DELETE FROM fleet_outbox'),
    lastRun: db.prepare<[string], Record<string, unknown>>(
      'SELECT * FROM job_runs WHERE name = ? ORDER BY started_at DESC, id DESC LIMIT 1',
    ),
    activeWebsites: db.prepare<[], { n: number }>("SELECT COALESCE(SUM(n), 0) AS n FROM website_counts WHERE state = 'active'"),
    providerAnswered: db.prepare<[], { at: number | null }>(
      `SELECT MAX(at) AS at FROM (
         SELECT MAX(taken_at) AS at FROM stats_samples
         UNION ALL SELECT CAST(value AS INTEGER) FROM kv WHERE key = '${PROVIDER_ANSWERED_AT}')`,
    ),
    doctor: db.prepare<[], { at: number; status: DoctorSummary['status']; checks: string }>(
      'SELECT at, status, checks FROM doctor_results WHERE id = 1',
    ),
    saveDoctor: db.prepare<[number, string, string]>(
      'INSERT INTO doctor_results (id, at, status, checks) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at, status = excluded.status, checks = excluded.checks',
    ),
  };
  const sentMany = db.transaction((sent: readonly Pick<OutboxWebsite, 'domain' | 'version'>[]) => {
    for (const marker of sent) s.forget.run(marker.domain, marker.version);
  });
  const start = db.transaction(() => {
    for (const [name, body] of Object.entries(TRIGGERS)) db.exec(`CREATE TRIGGER IF NOT EXISTS ${name} ${body}`);
    if (s.fact.get(FLEET_PUBLISHING)) return false;
    s.setFact.run(FLEET_PUBLISHING, '1', now());
    // Every website once: the fleet database may never have heard of this server.
    s.queueAll.run(now());
    return true;
  });
  const stop = db.transaction(() => {
    for (const name of Object.keys(TRIGGERS)) db.exec(`DROP TRIGGER IF EXISTS ${name}`);
    s.dropFact.run(FLEET_PUBLISHING);
    s.clear.run();
  });

  const outbox: FleetOutbox = {
    pendingWebsites: (limit) => s.pending.all(limit).map(toOutboxWebsite),
    websitesSent: (sent) => sentMany(sent),
    actionsAfter: (afterId, limit) => s.actionsAfter.all(afterId, limit).map(toPublishedAction),
    actionsSentId: () => Number(s.fact.get(ACTIONS_SENT)?.value ?? 0),
    actionsSent: (throughId) => void s.setFact.run(ACTIONS_SENT, String(throughId), now()),
    health: () => {
      const doctor = s.doctor.get();
      return {
        websites: s.activeWebsites.get()?.n ?? 0,
        lastSync: toRunHealth(s.lastRun.get('sync-stats')),
        lastEnforce: toRunHealth(s.lastRun.get('enforce')),
        providerReachedAt: s.providerAnswered.get()?.at ?? null,
        doctor: doctor ? { at: doctor.at, status: doctor.status, checks: JSON.parse(doctor.checks) as DoctorSummary['checks'] } : null,
      };
    },
    pendingCount: () => s.count.get()?.n ?? 0,
  };
  return {
    ...outbox,
    /** Makes the triggers (each start: a migration that rebuilt a table dropped its triggers), queueing every website the first time; true then. */
    startPublishing: (): boolean => start(),
    /** Drops the triggers and empties the outbox: a server that left the fleet keeps nothing for it, and pays nothing for it. */
    stopPublishing: (): void => stop(),
    publishing: (): boolean => s.fact.get(FLEET_PUBLISHING) !== undefined,
    /** The last `wpp doctor` run, replacing the one before. */
    recordDoctor: (summary: DoctorSummary): void => void s.saveDoctor.run(summary.at, summary.status, JSON.stringify(summary.checks)),
  };
}

export type FleetOutboxRepo = ReturnType<typeof createFleetOutboxRepo>;
