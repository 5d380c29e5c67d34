/**
 * Accounts and their websites, plans and the small key-value facts of the plugin: the SQL
 * of provisioning, enforcement and the statistics views about them, prepared once per database.
 */
import type { Account, AccountState, DesiredStatus, PausedBy, Plan, ProvisioningFailure, Reseller, Website } from '../core/types.js';
import type { SettingsPatch } from '../provider/spec.js';
import { isSealed, type KeyBox } from './api-keys.js';
import type { Db } from './open.js';

interface AccountRow {
  account: string;
  email: string | null;
  plan: string | null;
  provider_user_id: string;
  provider_api_key: string | null;
  state: AccountState;
  reseller: string | null;
  created_at: number;
  updated_at: number;
}

/** What limits need of an account: its plan and its reseller, read without its API key. */
export interface AccountOwner {
  account: string;
  plan: string | null;
  reseller: string | null;
}

interface WebsiteRow {
  domain: string;
  account: string;
  subdomains: string;
  origin_ips: string;
  state: 'active' | 'removed';
  desired_status: DesiredStatus;
  paused_by: PausedBy | null;
  provider_status: string | null;
  provider_checked_at: number | null;
  callback_token_hash: string;
  enforcement_paused_period: number | null;
  admin_override_until: number | null;
  provisioned_at: number | null;
  provisioning_error_code: string | null;
  provisioning_error: string | null;
  provisioning_failed_at: number | null;
  created_at: number;
  updated_at: number;
}

/**
 * Without a key box (commands that never use API keys: hooks, plans) an account reads with no
 * key, and storing one is refused; with one, keys are sealed on the way in and opened on the way out.
 */
const openedKey = (row: AccountRow, keys: KeyBox | undefined): string | null => {
  if (row.provider_api_key === null || !keys) return null;
  return isSealed(row.provider_api_key) ? keys.open(row.provider_api_key, row.account) : row.provider_api_key;
};

const toAccountWith =
  (keys: KeyBox | undefined) =>
  (row: AccountRow): Account => ({
    account: row.account,
    email: row.email,
    plan: row.plan,
    providerUserId: row.provider_user_id,
    providerApiKey: openedKey(row, keys),
    state: row.state,
    reseller: row.reseller,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });

const toWebsite = (row: WebsiteRow): Website => ({
  domain: row.domain,
  account: row.account,
  subdomains: JSON.parse(row.subdomains) as string[],
  originIps: JSON.parse(row.origin_ips) as string[],
  state: row.state,
  desiredStatus: row.desired_status,
  pausedBy: row.paused_by,
  providerStatus: row.provider_status,
  providerCheckedAt: row.provider_checked_at,
  callbackTokenHash: row.callback_token_hash,
  enforcementPausedPeriod: row.enforcement_paused_period,
  adminOverrideUntil: row.admin_override_until,
  provisionedAt: row.provisioned_at,
  provisioningFailure:
    row.provisioning_error_code === null
      ? null
      : { code: row.provisioning_error_code, reason: row.provisioning_error ?? '', at: row.provisioning_failed_at ?? row.updated_at },
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

interface PlanRow {
  name: string;
  settings: string;
  subdomains: string;
  monitor_days: number;
}

const toPlan = (row: PlanRow): Plan => ({
  name: row.name,
  settings: JSON.parse(row.settings) as SettingsPatch,
  subdomains: JSON.parse(row.subdomains) as string[],
  monitorDays: row.monitor_days,
});

/** Account rows. */
function prepareAccountStatements(db: Db) {
  return {
    account: db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE account = ?'),
    accountState: db.prepare<[string], { state: AccountState }>('SELECT state FROM accounts WHERE account = ?'),
    owner: db.prepare<[string], AccountOwner>('SELECT account, plan, reseller FROM accounts WHERE account = ?'),
    ownersOf: db.prepare<[string], AccountOwner>(
      'SELECT account, plan, reseller FROM accounts WHERE account IN (SELECT value FROM json_each(?))',
    ),
    accountOfProviderUser: db.prepare<[string], { account: string }>('SELECT account FROM accounts WHERE provider_user_id = ?'),
    recentAccounts: db.prepare<[number], AccountRow>('SELECT * FROM accounts ORDER BY created_at DESC, account LIMIT ?'),
    upsertAccount: db.prepare(
      `INSERT INTO accounts (account, email, plan, provider_user_id, provider_api_key, state, reseller, created_at, updated_at)
       VALUES (@account, @email, @plan, @providerUserId, @providerApiKey, @state, @reseller, @at, @at)
       ON CONFLICT (account) DO UPDATE SET
         email = COALESCE(excluded.email, accounts.email),
         reseller = CASE WHEN @resellerGiven = 1 THEN excluded.reseller ELSE accounts.reseller END,
         plan = COALESCE(excluded.plan, accounts.plan),
         provider_user_id = excluded.provider_user_id,
         provider_api_key = COALESCE(excluded.provider_api_key, accounts.provider_api_key),
         state = excluded.state,
         updated_at = excluded.updated_at`,
    ),
    setAccountState: db.prepare('UPDATE accounts SET state = ?, updated_at = ? WHERE account = ?'),
    setAccountPlan: db.prepare('UPDATE accounts SET plan = ?, updated_at = ? WHERE account = ?'),
  };
}

/** Which reseller owns which account, and the resellers the panel named (migration 018). */
function prepareResellerStatements(db: Db) {
  return {
    setAccountReseller: db.prepare<[string | null, number, string]>('UPDATE accounts SET reseller = ?, updated_at = ? WHERE account = ?'),
    accountsOfReseller: db.prepare<[string], { account: string }>('SELECT account FROM accounts WHERE reseller = ? ORDER BY account'),
    accountsOfResellers: db.prepare<[string], { account: string }>(
      'SELECT account FROM accounts WHERE reseller IN (SELECT value FROM json_each(?)) ORDER BY account',
    ),
    reseller: db.prepare<[string], { name: string; email: string | null }>('SELECT name, email FROM resellers WHERE name = ?'),
    resellers: db.prepare<[], { name: string; email: string | null }>('SELECT name, email FROM resellers ORDER BY name'),
    upsertReseller: db.prepare(
      `INSERT INTO resellers (name, email, created_at, updated_at) VALUES (@name, @email, @at, @at)
       ON CONFLICT (name) DO UPDATE SET email = COALESCE(excluded.email, resellers.email), updated_at = excluded.updated_at`,
    ),
  };
}

/** Websites and the provider status the plugin last saw for them. */
function prepareWebsiteStatements(db: Db) {
  return {
    website: db.prepare<[string], WebsiteRow>('SELECT * FROM websites WHERE domain = ?'),
    websiteByToken: db.prepare<[string], WebsiteRow>('SELECT * FROM websites WHERE callback_token_hash = ?'),
    websitesOf: db.prepare<[string], WebsiteRow>('SELECT * FROM websites WHERE account = ? ORDER BY domain'),
    accountsWithWebsites: db.prepare<[], { account: string }>(
      "SELECT DISTINCT account FROM websites WHERE state = 'active' ORDER BY account",
    ),
    // A website the provider has not accepted (being set up, or refused) protects nothing: it takes no place under the limit.
    activeCount: db.prepare<[string, string], { n: number }>(
      "SELECT COUNT(*) AS n FROM websites WHERE account = ? AND state = 'active' AND provisioned_at IS NOT NULL AND domain != ?",
    ),
    upsertWebsite: db.prepare(
      `INSERT INTO websites (domain, account, subdomains, origin_ips, state, desired_status, paused_by, provider_status,
         provider_checked_at, callback_token_hash, enforcement_paused_period, admin_override_until, provisioned_at, created_at, updated_at)
       VALUES (@domain, @account, @subdomains, @originIps, @state, @desiredStatus, @pausedBy, @providerStatus,
         @providerCheckedAt, @callbackTokenHash, @enforcementPausedPeriod, @adminOverrideUntil, @provisionedAt, @at, @at)
       ON CONFLICT (domain) DO UPDATE SET
         account = excluded.account, subdomains = excluded.subdomains, origin_ips = excluded.origin_ips,
         state = excluded.state, desired_status = excluded.desired_status, paused_by = excluded.paused_by,
         provider_status = excluded.provider_status, provider_checked_at = excluded.provider_checked_at,
         callback_token_hash = excluded.callback_token_hash, enforcement_paused_period = excluded.enforcement_paused_period,
         admin_override_until = excluded.admin_override_until, updated_at = excluded.updated_at`,
    ),
    // A pause the provider shows but nobody in the plugin made (the provider's dashboard) is
    // recorded as 'external'. Its end clears it, as does the end of the customer's own pause
    // made with their own key: both are theirs. Every other pause is the host's (core/host-pause.ts).
    setProviderStatus: db.prepare(
      `UPDATE websites SET provider_status = @status, provider_checked_at = @now, updated_at = @now,
         desired_status = CASE
           WHEN @status = 'paused' AND desired_status = 'online' AND paused_by IS NULL AND state = 'active' THEN 'paused'
           WHEN @status = 'online' AND paused_by IN ('external', 'customer') THEN 'online'
           ELSE desired_status END,
         paused_by = CASE
           WHEN @status = 'paused' AND desired_status = 'online' AND paused_by IS NULL AND state = 'active' THEN 'external'
           WHEN @status = 'online' AND paused_by IN ('external', 'customer') THEN NULL
           ELSE paused_by END
       WHERE domain = @domain`,
    ),
    // Only a website not provisioned yet keeps a refusal: the pages show it until the next try.
    recordFailure: db.prepare(
      `UPDATE websites SET provider_status = 'error', provisioning_error_code = @code, provisioning_error = @reason,
         provisioning_failed_at = @at, provider_checked_at = @at, updated_at = @at
       WHERE domain = @domain AND account = @account AND provisioned_at IS NULL`,
    ),
    clearFailure: db.prepare(
      `UPDATE websites SET provider_status = NULL, provisioning_error_code = NULL, provisioning_error = NULL,
         provisioning_failed_at = NULL, updated_at = @at
       WHERE domain = @domain AND provisioned_at IS NULL AND provisioning_error_code IS NOT NULL`,
    ),
    markProvisioned: db.prepare(
      `UPDATE websites SET provisioned_at = COALESCE(provisioned_at, @at), provisioning_error_code = NULL, provisioning_error = NULL,
         provisioning_failed_at = NULL WHERE domain = @domain`,
    ),
    heldAmong: db.prepare<{ domains: string; heldPaused: string }, { domain: string; account: string }>(
      `SELECT domain, account FROM websites WHERE domain IN (SELECT value FROM json_each(@domains))
         AND state = 'active' AND desired_status = 'paused' AND paused_by IN (SELECT value FROM json_each(@heldPaused))`,
    ),
    toRecheck: db.prepare<{ checkedBefore: number; limit: number; heldPaused: string }, WebsiteRow>(
      `SELECT * FROM websites WHERE state = 'active' AND provisioned_at IS NOT NULL
         AND (provider_status IS NULL OR provider_status NOT IN ('online', 'paused')
           OR (desired_status = 'paused' AND paused_by IN (SELECT value FROM json_each(@heldPaused))))
         AND (provider_checked_at IS NULL OR provider_checked_at <= @checkedBefore)
       ORDER BY provider_checked_at LIMIT @limit`,
    ),
  };
}

/** Plans: the settings and subdomains a panel plan gives its websites. */
function preparePlanStatements(db: Db) {
  return {
    plan: db.prepare<[string], PlanRow>('SELECT * FROM plans WHERE name = ?'),
    plans: db.prepare<[], PlanRow>('SELECT * FROM plans ORDER BY name'),
    upsertPlan: db.prepare(
      `INSERT INTO plans (name, settings, subdomains, monitor_days, created_at, updated_at)
       VALUES (@name, @settings, @subdomains, @monitorDays, @at, @at)
       ON CONFLICT (name) DO UPDATE SET settings = excluded.settings, subdomains = excluded.subdomains,
         monitor_days = excluded.monitor_days, updated_at = excluded.updated_at`,
    ),
  };
}

/** An account renamed: its row and every table that names it. */
function prepareRenameStatements(db: Db) {
  return {
    renameRow: db.prepare('UPDATE accounts SET account = @to, provider_api_key = @key, updated_at = @at WHERE account = @from'),
    // What a customer's pages and statistics show follows the account to its new name; the
    // websites' own triggers carry the quota and read schedule (009, 012).
    renameIn: [
      'UPDATE websites SET account = @to WHERE account = @from',
      'UPDATE hits_hourly SET account = @to WHERE account = @from',
      'UPDATE usage SET account = @to WHERE account = @from',
      'UPDATE enforcement_actions SET account = @to WHERE account = @from',
      'UPDATE website_status_changes SET account = @to WHERE account = @from',
      'UPDATE website_notices SET account = @to WHERE account = @from',
      'UPDATE account_forecast SET account = @to WHERE account = @from',
      "UPDATE limits SET subject = @to WHERE scope = 'account' AND subject = @from",
      // A renamed reseller (cPanel resellers are accounts too) keeps its customers and its own row.
      'UPDATE accounts SET reseller = @to WHERE reseller = @from',
      'UPDATE resellers SET name = @to WHERE name = @from AND NOT EXISTS (SELECT 1 FROM resellers WHERE name = @to)',
    ].map((sql) => db.prepare(sql)),
  };
}

/** The kv key of the provider's last usable answer (written by recordProviderAnswer, read by the admin views). */
export const PROVIDER_ANSWERED_AT = 'provider.answered_at';

/** Small named values the plugin keeps between runs. */
function prepareKvStatements(db: Db) {
  return {
    kvGet: db.prepare<[string], { value: string }>('SELECT value FROM kv WHERE key = ?'),
    kvSet: db.prepare(
      'INSERT INTO kv (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
    ),
    kvClaim: db.prepare('INSERT INTO kv (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING'),
  };
}

// Prepared once per repository, grouped by the table they serve; the factory below reads as what the repository does.
function prepareAccountsStatements(db: Db) {
  return {
    ...prepareAccountStatements(db),
    ...prepareResellerStatements(db),
    ...prepareWebsiteStatements(db),
    ...preparePlanStatements(db),
    ...prepareRenameStatements(db),
    ...prepareKvStatements(db),
  };
}

export function createAccountsRepo(db: Db, now: () => number = Date.now, keys?: KeyBox) {
  const toAccount = toAccountWith(keys);
  const s = prepareAccountsStatements(db);

  return {
    getAccount: (account: string) => {
      const row = s.account.get(account);
      return row ? toAccount(row) : null;
    },
    /** The account that has this provider user, or null. */
    accountOfProviderUser: (providerUserId: string): string | null => s.accountOfProviderUser.get(providerUserId)?.account ?? null,
    /** The account's plan and reseller (no key is opened), or null for an account the plugin does not know. */
    ownerOf: (account: string): AccountOwner | null => s.owner.get(account) ?? null,
    /** The plan and reseller of each of these accounts the plugin knows, in one query (no key is opened). */
    ownersOf: (accounts: readonly string[]): AccountOwner[] => (accounts.length === 0 ? [] : s.ownersOf.all(JSON.stringify(accounts))),
    /** The account's state alone (no key is opened), or null for an account the plugin does not know. */
    accountState: (account: string): AccountState | null => s.accountState.get(account)?.state ?? null,
    /** The newest accounts first (the demo panel's list). */
    recentAccounts: (limit: number) => s.recentAccounts.all(limit).map(toAccount),
    /** Creates or updates an account; null email/plan/key keep what is stored, and so does an absent reseller (null: the host's own). */
    saveAccount(account: Omit<Account, 'createdAt' | 'updatedAt'>): void {
      const key = account.providerApiKey;
      if (key !== null && !keys) throw new Error('storing an API key needs the key box (openApiKeys)');
      s.upsertAccount.run({
        ...account,
        reseller: account.reseller ?? null,
        resellerGiven: account.reseller === undefined ? 0 : 1,
        providerApiKey: key === null ? null : keys?.seal(key, account.account),
        at: now(),
      });
    },
    setAccountState: (account: string, state: AccountState) => void s.setAccountState.run(state, now(), account),
    /**
     * Gives an account a new name in one transaction: its row (the same provider user, its key
     * sealed again for the new name), its websites, statistics, limits and history. 'unknown':
     * no account `from`; 'taken': `to` exists already (nothing is changed).
     */
    renameAccount(from: string, to: string): 'renamed' | 'unknown' | 'taken' {
      return db.transaction((): 'renamed' | 'unknown' | 'taken' => {
        const row = s.account.get(from);
        if (!row) return 'unknown';
        if (s.account.get(to)) return 'taken';
        let key = row.provider_api_key;
        if (key !== null && isSealed(key)) {
          if (!keys) throw new Error('renaming an account with a stored API key needs the key box (openApiKeys)');
          key = keys.seal(keys.open(key, from), to);
        }
        // The account's websites point at its name: checked once all of them point at the new one (reset at commit).
        db.pragma('defer_foreign_keys = ON');
        s.renameRow.run({ from, to, key, at: now() });
        for (const statement of s.renameIn) statement.run({ from, to });
        return 'renamed';
      })();
    },
    setAccountPlan: (account: string, plan: string) => void s.setAccountPlan.run(plan, now(), account),

    /** Hands an account to a reseller (null: to the host itself); false for an account the plugin does not know. */
    setAccountReseller: (account: string, reseller: string | null): boolean =>
      s.setAccountReseller.run(reseller, now(), account).changes === 1,
    /** The accounts a reseller owns, by name (every state: the pages say which are suspended or closed). */
    accountsOfReseller: (reseller: string): string[] => s.accountsOfReseller.all(reseller).map((row) => row.account),
    /** The accounts these resellers own, by name, in one query. */
    accountsOfResellers: (resellers: readonly string[]): string[] =>
      resellers.length === 0 ? [] : s.accountsOfResellers.all(JSON.stringify(resellers)).map((row) => row.account),
    getReseller: (name: string): Reseller | null => s.reseller.get(name) ?? null,
    listResellers: (): Reseller[] => s.resellers.all(),
    /** Records a reseller the panel named; a null e-mail keeps the stored one. */
    saveReseller: (reseller: Reseller): void => void s.upsertReseller.run({ ...reseller, at: now() }),
    /** Records the resellers a panel listing names, in one transaction; an absent or null e-mail keeps the stored one. */
    saveResellers: db.transaction((resellers: readonly { name: string; email?: string | null | undefined }[]): void => {
      const at = now();
      for (const reseller of resellers) s.upsertReseller.run({ name: reseller.name, email: reseller.email ?? null, at });
    }),

    getWebsite: (domain: string) => {
      const row = s.website.get(domain);
      return row ? toWebsite(row) : null;
    },
    getWebsiteByTokenHash: (hash: string) => {
      const row = s.websiteByToken.get(hash);
      return row ? toWebsite(row) : null;
    },
    websitesOf: (account: string) => s.websitesOf.all(account).map(toWebsite),
    accountsWithWebsites: () => s.accountsWithWebsites.all().map((row) => row.account),
    /** Active websites of the account, not counting `except`. */
    activeWebsiteCount: (account: string, except = '') => s.activeCount.get(account, except)?.n ?? 0,
    saveWebsite(
      website: Omit<Website, 'createdAt' | 'updatedAt' | 'enforcementPausedPeriod' | 'adminOverrideUntil'> &
        Partial<Pick<Website, 'enforcementPausedPeriod' | 'adminOverrideUntil'>>,
    ): void {
      const at = now();
      s.upsertWebsite.run({
        enforcementPausedPeriod: null,
        adminOverrideUntil: null,
        ...website,
        // Only a new row takes it (a row's provisioned_at changes through markProvisioned alone).
        provisionedAt: website.provisionedAt === undefined ? at : website.provisionedAt,
        subdomains: JSON.stringify(website.subdomains),
        originIps: JSON.stringify(website.originIps),
        at,
      });
    },
    /** The provider refused a website it has not accepted yet: kept on the row (provider status 'error') until the next try. */
    recordProvisioningFailure: (domain: string, account: string, failure: ProvisioningFailure) =>
      s.recordFailure.run({ domain, account, ...failure }).changes === 1,
    /** A refused website tried again: "setting up" until the provider answers. False when it holds no refusal. */
    clearProvisioningFailure: (domain: string) => s.clearFailure.run({ domain, at: now() }).changes === 1,
    /** The provider accepted the website: provisioned from now on (the first time kept), any refusal forgotten. */
    markProvisioned: (domain: string) => void s.markProvisioned.run({ domain, at: now() }),
    /**
     * Records the status the provider reports. A website the plugin keeps online but the
     * provider shows paused was paused outside the plugin: it becomes paused by `external`
     * (so enforcement never claims or undoes that pause) until the provider shows it online.
     */
    setProviderStatus: (domain: string, status: string) => void s.setProviderStatus.run({ domain, status, now: now() }),
    /**
     * Active websites to read again from the provider, not checked since `checkedBefore`: those
     * whose status is not yet settled, and those paused by one of `heldPaused` (a pause the
     * customer's own provider key can undo behind the plugin's back).
     */
    /** Of `domains`, the active websites paused by one of `heldPaused`. */
    pausedAmong: (domains: readonly string[], heldPaused: readonly PausedBy[]): { domain: string; account: string }[] =>
      domains.length === 0 ? [] : s.heldAmong.all({ domains: JSON.stringify(domains), heldPaused: JSON.stringify(heldPaused) }),
    websitesToRecheck: (checkedBefore: number, limit: number, heldPaused: readonly PausedBy[]) =>
      s.toRecheck.all({ checkedBefore, limit, heldPaused: JSON.stringify(heldPaused) }).map(toWebsite),

    getPlan(name: string): Plan | null {
      const row = s.plan.get(name);
      return row ? toPlan(row) : null;
    },
    listPlans: (): Plan[] => s.plans.all().map(toPlan),
    /** Creates or replaces a plan; without monitorDays its websites are protected at once. */
    savePlan(plan: Omit<Plan, 'monitorDays'> & { monitorDays?: number }): void {
      s.upsertPlan.run({
        name: plan.name,
        settings: JSON.stringify(plan.settings),
        subdomains: JSON.stringify(plan.subdomains),
        monitorDays: plan.monitorDays ?? 0,
        at: now(),
      });
    },

    getFact: (key: string) => s.kvGet.get(key)?.value ?? null,
    setFact: (key: string, value: string) => void s.kvSet.run(key, value, now()),
    /** Stores `value` unless the fact is there already; returns the stored one (the first process to claim it wins). */
    claimFact(key: string, value: string): string {
      // Read first: every process start asks (hooks included), and only the first ever needs the write lock.
      const stored = s.kvGet.get(key)?.value;
      if (stored !== undefined) return stored;
      s.kvClaim.run(key, value, now());
      return s.kvGet.get(key)?.value ?? value;
    },
    /** When the provider last gave a usable answer (the admin overview's "provider last answered"). */
    recordProviderAnswer: (at: number) => void s.kvSet.run(PROVIDER_ANSWERED_AT, String(at), at),
  };
}

export type AccountsRepo = ReturnType<typeof createAccountsRepo>;
