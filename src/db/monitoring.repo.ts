/**
 * When each website's monitoring ends (migration 016): the choice a plan, a bulk protect run or
 * an import made, kept per domain until the scheduled switch or the customer's Protect now ends it.
 */
import type { Db } from './open.js';

export interface MonitoringChoice {
  domain: string;
  /** When the website switches to protecting. */
  until: number;
  /** plan:<name>, bulk:<admin>, import. */
  chosenBy: string;
}

/** A choice whose time has come, with what the switch needs to know of its website and its hit limit now. */
export interface DueMonitoring {
  domain: string;
  until: number;
  /** The website's quota standing from the last enforcement pass: 'over' while a hit limit is reached. */
  quotaLevel: string | null;
  periodStart: number | null;
  periodEnd: number | null;
}

interface ChoiceRow {
  domain: string;
  until: number;
  chosen_by: string;
}

export function createMonitoringRepo(db: Db, now: () => number = Date.now) {
  const s = {
    get: db.prepare<[string], ChoiceRow>('SELECT domain, until, chosen_by FROM website_monitoring WHERE domain = ?'),
    upsert: db.prepare(
      `INSERT INTO website_monitoring (domain, until, chosen_by, created_at) VALUES (@domain, @until, @chosenBy, @at)
       ON CONFLICT (domain) DO UPDATE SET until = excluded.until, chosen_by = excluded.chosen_by, created_at = excluded.created_at`,
    ),
    remove: db.prepare('DELETE FROM website_monitoring WHERE domain = ?'),
    // Only choices of websites the plugin has: a choice made before its set-up (an import) waits for it.
    due: db.prepare<
      [number, number],
      { domain: string; until: number; level: string | null; period_start: number | null; period_end: number | null }
    >(
      `SELECT m.domain, m.until, q.level, q.period_start, q.period_end
         FROM website_monitoring m
         JOIN websites w ON w.domain = m.domain
         LEFT JOIN website_quota q ON q.domain = m.domain
        WHERE m.until <= ? ORDER BY m.until, m.domain LIMIT ?`,
    ),
    active: db.prepare<[number], { n: number }>('SELECT COUNT(*) AS n FROM website_monitoring WHERE until > ?'),
  };
  const save = db.transaction((choices: readonly MonitoringChoice[], at: number) => {
    for (const choice of choices) s.upsert.run({ ...choice, at });
  });
  return {
    get(domain: string): MonitoringChoice | null {
      const row = s.get.get(domain);
      return row ? { domain: row.domain, until: row.until, chosenBy: row.chosen_by } : null;
    },
    /** Records (or replaces) the choices in one transaction. */
    save: (choices: readonly MonitoringChoice[]): void => save(choices, now()),
    remove: (domain: string): void => void s.remove.run(domain),
    /** The choices due at `at`, oldest first, at most `limit`. */
    due: (at: number, limit: number): DueMonitoring[] =>
      s.due.all(at, limit).map((row) => ({
        domain: row.domain,
        until: row.until,
        quotaLevel: row.level,
        periodStart: row.period_start,
        periodEnd: row.period_end,
      })),
    /** How many websites are still to switch after `at`. */
    pendingCount: (at: number): number => s.active.get(at)?.n ?? 0,
  };
}

export type MonitoringRepo = ReturnType<typeof createMonitoringRepo>;
