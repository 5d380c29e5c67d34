/**
 * What `wpp import` reads of the plugin (every account, every website and the panel events
 * still waiting) and the comparisons it records (migrations/011_panel_comparisons.sql).
 */
import type { Comparison, Difference, DifferenceKind, KnownState } from '../core/import-diff.js';
import type { PanelEventType } from '../panel/events.js';
import type { Db } from './open.js';

/** The differences kept per comparison; the counts cover all of them. */
export const STORED_DIFFERENCES = 500;

export interface StoredComparison {
  id: number;
  at: number;
  panel: string;
  source: 'cli' | 'schedule';
  listed: Comparison['listed'];
  providerChecked: boolean;
  counts: Record<DifferenceKind, number>;
  totalDifferences: number;
  /** The first STORED_DIFFERENCES differences. */
  differences: Difference[];
  /** Events queued by --apply; null: only reported. */
  applied: number | null;
}

interface ComparisonRow {
  id: number;
  at: number;
  panel: string;
  source: 'cli' | 'schedule';
  listed_accounts: number;
  listed_domains: number;
  listed_subdomains: number;
  provider_checked: number;
  counts: string;
  total_differences: number;
  differences: string;
  applied: number | null;
}

const toComparison = (row: ComparisonRow): StoredComparison => ({
  id: row.id,
  at: row.at,
  panel: row.panel,
  source: row.source,
  listed: { accounts: row.listed_accounts, domains: row.listed_domains, subdomains: row.listed_subdomains },
  providerChecked: row.provider_checked === 1,
  counts: JSON.parse(row.counts) as Record<DifferenceKind, number>,
  totalDifferences: row.total_differences,
  differences: JSON.parse(row.differences) as Difference[],
  applied: row.applied,
});

export function createImportRepo(db: Db) {
  const s = {
    accounts: db.prepare<
      [],
      {
        account: string;
        state: KnownState['accounts'][number]['state'];
        provider_user_id: string;
        reseller: string | null;
        protection_included: number | null;
      }
    >('SELECT account, state, provider_user_id, reseller, protection_included FROM accounts'),
    websites: db.prepare<
      [],
      { domain: string; account: string; state: 'active' | 'removed'; subdomains: string; provider_status: string | null }
    >('SELECT domain, account, state, subdomains, provider_status FROM websites'),
    queued: db.prepare<[], { type: PanelEventType; account: string; domain: string | null; subdomain: string | null }>(
      `SELECT json_extract(payload, '$.type') AS type, json_extract(payload, '$.account') AS account,
         json_extract(payload, '$.domain') AS domain, json_extract(payload, '$.subdomain') AS subdomain
       FROM jobs WHERE state IN ('pending', 'running') AND kind = 'panel.event'`,
    ),
    insert: db.prepare(
      `INSERT INTO panel_comparisons (at, panel, source, listed_accounts, listed_domains, listed_subdomains, provider_checked,
         counts, total_differences, differences, applied)
       VALUES (@at, @panel, @source, @accounts, @domains, @subdomains, @providerChecked, @counts, @total, @differences, @applied)`,
    ),
    recent: db.prepare<[number], ComparisonRow>('SELECT * FROM panel_comparisons ORDER BY at DESC, id DESC LIMIT ?'),
  };

  return {
    /** The plugin's side of a comparison, read in one transaction so the three lists agree. */
    knownState: db.transaction((): KnownState => ({
      accounts: s.accounts.all().map((row) => ({
        account: row.account,
        state: row.state,
        providerUserId: row.provider_user_id,
        reseller: row.reseller,
        protectionIncluded: row.protection_included === null ? null : row.protection_included === 1,
      })),
      websites: s.websites.all().map((row) => ({
        domain: row.domain,
        account: row.account,
        state: row.state,
        subdomains: JSON.parse(row.subdomains) as string[],
        providerStatus: row.provider_status,
      })),
      queued: s.queued.all().map((row) => ({
        type: row.type,
        account: row.account,
        domain: row.domain ?? undefined,
        subdomain: row.subdomain ?? undefined,
      })),
    })),

    saveComparison(input: {
      at: number;
      panel: string;
      source: 'cli' | 'schedule';
      comparison: Comparison;
      applied: number | null;
    }): number {
      const { comparison } = input;
      return Number(
        s.insert.run({
          at: input.at,
          panel: input.panel,
          source: input.source,
          ...comparison.listed,
          providerChecked: comparison.providerChecked ? 1 : 0,
          counts: JSON.stringify(comparison.counts),
          total: comparison.differences.length,
          differences: JSON.stringify(comparison.differences.slice(0, STORED_DIFFERENCES)),
          applied: input.applied,
        }).lastInsertRowid,
      );
    },

    /** Newest first. */
    recentComparisons: (limit: number): StoredComparison[] => s.recent.all(limit).map(toComparison),
  };
}

export type ImportRepo = ReturnType<typeof createImportRepo>;
