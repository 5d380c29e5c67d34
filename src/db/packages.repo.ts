/**
 * Protection per hosting package (migration 020): whether each account's package includes web
 * protection as the panel last said, when it lost it, and the packages the panel named. The
 * rules are core/package-protection.ts's; this is their SQL.
 */
import type { Db } from './open.js';

/** An account's protection as stored: `included` null when the panel never said (read as included). */
export interface AccountProtection {
  included: boolean | null;
  /** When its package lost protection (the grace period runs from here); null while included. */
  removedAt: number | null;
}

/** A package the panel named, for the Settings page. */
export interface PackageRow {
  name: string;
  protection: boolean;
  seenAt: number;
  /** Accounts on it the plugin knows (not deleted). */
  accounts: number;
}

/** An account without protection that still has websites at the provider (doctor's warning). */
export interface UnreleasedAccount {
  account: string;
  plan: string | null;
  websites: number;
  removedAt: number | null;
}

const toBool = (value: number | null): boolean | null => (value === null ? null : value === 1);

export function createPackagesRepo(db: Db) {
  const s = {
    protectionOf: db.prepare<[string], { protection_included: number | null; protection_removed_at: number | null }>(
      'SELECT protection_included, protection_removed_at FROM accounts WHERE account = ?',
    ),
    // The grace starts when protection is lost, and is not restarted by the panel saying so again.
    setProtection: db.prepare(
      `UPDATE accounts SET protection_included = @included,
         protection_removed_at = CASE WHEN @included = 1 THEN NULL ELSE COALESCE(protection_removed_at, @at) END,
         updated_at = @at
       WHERE account = @account`,
    ),
    savePackage: db.prepare(
      `INSERT INTO packages (name, protection, seen_at) VALUES (@name, @protection, @at)
       ON CONFLICT (name) DO UPDATE SET protection = excluded.protection, seen_at = excluded.seen_at`,
    ),
    packages: db.prepare<[], { name: string; protection: number; seen_at: number; accounts: number }>(
      `SELECT p.name, p.protection, p.seen_at,
         (SELECT COUNT(*) FROM accounts a WHERE a.plan = p.name AND a.state <> 'deleted') AS accounts
       FROM packages p ORDER BY p.name`,
    ),
    // Removed at the provider after the grace: the row stays (the panel still has the domain), not provisioned.
    markUnprovisioned: db.prepare(
      `UPDATE websites SET provisioned_at = NULL, provider_status = NULL, provider_checked_at = @at, updated_at = @at
       WHERE domain = @domain`,
    ),
    unreleased: db.prepare<[], { account: string; plan: string | null; websites: number; removed_at: number | null }>(
      `SELECT a.account, a.plan, a.protection_removed_at AS removed_at, COUNT(w.domain) AS websites
       FROM accounts a JOIN websites w ON w.account = a.account AND w.state = 'active' AND w.provisioned_at IS NOT NULL
       WHERE a.protection_included = 0 AND a.state <> 'deleted'
       GROUP BY a.account ORDER BY a.account`,
    ),
  };
  return {
    protectionOf(account: string): AccountProtection {
      const row = s.protectionOf.get(account);
      return { included: toBool(row?.protection_included ?? null), removedAt: row?.protection_removed_at ?? null };
    },
    /** Stores what the panel says of the account's package; `at` starts the grace when protection is lost. */
    setProtection: (account: string, included: boolean, at: number) =>
      void s.setProtection.run({ account, included: included ? 1 : 0, at }),
    savePackage: (name: string, protection: boolean, at: number) => void s.savePackage.run({ name, protection: protection ? 1 : 0, at }),
    listPackages: (): PackageRow[] =>
      s.packages.all().map((row) => ({ name: row.name, protection: row.protection === 1, seenAt: row.seen_at, accounts: row.accounts })),
    markUnprovisioned: (domain: string, at: number) => void s.markUnprovisioned.run({ domain, at }),
    /** Accounts whose package lacks protection but whose websites the provider still has. */
    unreleasedAccounts: (): UnreleasedAccount[] =>
      s.unreleased.all().map((row) => ({ account: row.account, plan: row.plan, websites: row.websites, removedAt: row.removed_at })),
  };
}

export type PackagesRepo = ReturnType<typeof createPackagesRepo>;
