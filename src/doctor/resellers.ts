/**
 * `wpp doctor`'s resellers line: how many accounts each reseller owns as the plugin has it, and
 * whether the last panel comparison (`wpp import`, or the scheduled check) agreed. Read from the
 * database alone: the panel's tools answer root only and can be slow, and the comparison
 * already records which owners differ (reseller.differs).
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Config } from '../config.js';
import { ok, SkipCheck, warn, type CheckResult } from './doctor.js';

/** Resellers named on the line; the rest are counted. */
const NAMED = 5;

interface Owners {
  /** reseller -> accounts it owns (not deleted), the most first. */
  resellers: { name: string; accounts: number }[];
  /** Accounts of the host's own. */
  host: number;
  /** Resellers the panel's listing named that own no account here (the resellers table). */
  withoutAccounts: number;
  /** The last comparison with the panel: when, and how many accounts it found owned by another reseller. */
  lastComparison: { at: number; differs: number } | null;
}

function readOwners(file: string): Owners {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const columns = db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('accounts')").all();
    if (!columns.some((column) => column.name === 'reseller'))
      throw new SkipCheck('the database is before migration 018 (resellers): restart `wpp serve` to apply it');
    const rows = db
      .prepare<[], { reseller: string | null; n: number }>(
        "SELECT reseller, COUNT(*) AS n FROM accounts WHERE state != 'deleted' GROUP BY reseller ORDER BY n DESC, reseller",
      )
      .all();
    const withoutAccounts = db
      .prepare<[], { n: number }>(
        "SELECT COUNT(*) AS n FROM resellers r WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.reseller = r.name AND a.state != 'deleted')",
      )
      .get();
    const last = db
      .prepare<[], { at: number; counts: string }>('SELECT at, counts FROM panel_comparisons ORDER BY at DESC, id DESC LIMIT 1')
      .get();
    const differs = last ? Number((JSON.parse(last.counts) as Record<string, number>)['reseller.differs'] ?? 0) : 0;
    return {
      resellers: rows.flatMap((row) => (row.reseller === null ? [] : [{ name: row.reseller, accounts: row.n }])),
      host: rows.find((row) => row.reseller === null)?.n ?? 0,
      withoutAccounts: withoutAccounts?.n ?? 0,
      lastComparison: last ? { at: last.at, differs } : null,
    };
  } finally {
    db.close();
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The line itself (pure: the unit of the check). */
export function describeOwners(owners: Owners, panel: string | undefined): CheckResult {
  const { resellers, host, withoutAccounts, lastComparison } = owners;
  const named = resellers.slice(0, NAMED).map((r) => `${r.name} ${r.accounts}`);
  if (resellers.length > NAMED) named.push(`${resellers.length - NAMED} more`);
  const parts = [
    resellers.length === 0 ? 'no account owned by a reseller' : `${plural(resellers.length, 'reseller')} (${named.join(', ')})`,
    `${plural(host, 'account')} the host's own`,
    ...(withoutAccounts > 0 ? [`${plural(withoutAccounts, 'reseller')} the panel named without accounts here`] : []),
  ];
  const command = `wpp import ${panel ?? '<panel>'}`;
  if (lastComparison === null) return ok(`${parts.join('; ')}; not compared with the panel yet (${command})`);
  const when = new Date(lastComparison.at).toISOString().slice(0, 16).replace('T', ' ');
  if (lastComparison.differs > 0) {
    return warn(
      `${parts.join('; ')}; the panel comparison of ${when} UTC found ${plural(lastComparison.differs, 'account')} owned by another reseller: ${command} --apply follows the transfers`,
    );
  }
  return ok(`${parts.join('; ')}; the panel agreed at ${when} UTC`);
}

export async function checkResellers(config: Config): Promise<CheckResult> {
  if (!existsSync(config.databaseFile)) throw new SkipCheck('no database yet (see the database line)');
  return describeOwners(readOwners(config.databaseFile), config.panel.name ?? undefined);
}
