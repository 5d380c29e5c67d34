/**
 * Keeps the last `wpp doctor` run in the plugin's SQLite (doctor_results, migration 028), where
 * `wpp serve` publishes it with the server's health to the fleet database (docs/fleet.md "The
 * fleet view"). Only into a database the doctor's own database check found current: the doctor
 * never creates, migrates or repairs one. Opened as every entry point opens it (a file root
 * creates takes the data folder's owner).
 */
import type { Config } from '../config.js';
import type { DoctorSummary } from '../core/fleet-view.js';
import { createFleetOutboxRepo } from '../db/fleet-outbox.repo.js';
import { openPluginDatabase } from '../db/plugin-database.js';
import type { CheckReport } from './doctor.js';

/** The run as the fleet shows it: the worst status (a skipped check is no problem) and every check's line. */
export function doctorSummary(reports: readonly CheckReport[], at: number): DoctorSummary {
  const status = reports.some((r) => r.status === 'fail') ? 'fail' : reports.some((r) => r.status === 'warn') ? 'warn' : 'ok';
  return { at, status, checks: reports.map(({ name, status: s, detail }) => ({ name, status: s, detail })) };
}

/** True when the run was kept; false when there is no current database to keep it in. */
export function recordDoctorRun(config: Config | null, reports: readonly CheckReport[], now: number): boolean {
  if (!config || reports.find((r) => r.name === 'database')?.status !== 'ok') return false;
  const db = openPluginDatabase(config, { notice: () => undefined });
  try {
    createFleetOutboxRepo(db).recordDoctor(doctorSummary(reports, now));
    return true;
  } finally {
    db.close();
  }
}
