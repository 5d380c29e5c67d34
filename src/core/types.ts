/**
 * The plugin's own records of accounts, their websites and plans: what core works with.
 * The repository (db/accounts.repo.ts) maps rows to these. The provider's record of a
 * website is another thing: `ProviderWebsite` (provider/schemas.ts).
 */
import type { SettingsPatch } from '../provider/spec.js';

export type AccountState = 'active' | 'suspended' | 'deleted';
export type DesiredStatus = 'online' | 'paused' | 'setup';
/**
 * Who paused a website. `external`: someone outside the plugin (the provider's own dashboard).
 * `package`: the account's hosting package no longer includes web protection (core/package-protection.ts).
 */
export type PausedBy =
  'customer' | 'admin' | 'enforcement' | 'suspension' | 'domain_removed' | 'account_deleted' | 'external' | 'package' | 'reseller';

export interface Account {
  account: string;
  email: string | null;
  plan: string | null;
  providerUserId: string;
  /** The provider user's key, for the customer's own frames only. Never log an Account whole. */
  providerApiKey: string | null;
  state: AccountState;
  /**
   * The panel reseller who owns the account; null: the host's own customer. Absent when saving:
   * what is stored stays (most events do not say).
   */
  reseller?: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A reseller the panel named, with the e-mail address it gave (the reseller's digests). */
export interface Reseller {
  name: string;
  email: string | null;
}

export interface Website {
  domain: string;
  account: string;
  subdomains: string[];
  originIps: string[];
  state: 'active' | 'removed';
  desiredStatus: DesiredStatus;
  pausedBy: PausedBy | null;
  providerStatus: string | null;
  providerCheckedAt: number | null;
  callbackTokenHash: string;
  /** The period (start) in which enforcement paused it, when it did. */
  enforcementPausedPeriod: number | null;
  /** An admin resumed it: enforcement leaves it alone until this time. */
  adminOverrideUntil: number | null;
  /**
   * When the provider first accepted it; null while it is being set up or after a refusal (the
   * row exists from the panel's event on). Absent: a record built in memory, stored as accepted now.
   */
  provisionedAt?: number | null;
  /** Why the provider refused it, while it is not provisioned; null: no refusal since the last try. */
  provisioningFailure?: ProvisioningFailure | null;
  createdAt: number;
  updatedAt: number;
}

/** A refusal of a website's provisioning, kept for the pages until the next try. */
export interface ProvisioningFailure {
  /** A stable code: the provider's (`domain_unresolvable`, `validation_failed`) or the plugin's (`LIMIT_REACHED`). */
  code: string;
  /** The reason in the provider's (or the plugin's) own words. */
  reason: string;
  /** Epoch ms. */
  at: number;
}

export interface Plan {
  name: string;
  settings: SettingsPatch;
  subdomains: string[];
  /** Days a new website of the plan spends monitoring (at the provider `paused`: watched, nothing blocked) before it is protected; 0: protected at once. */
  monitorDays: number;
}

/**
 * One thing enforcement did (or an admin): recorded once per action key, and sent to the
 * notification URL. A `repause` is the plugin pausing again a website the host holds paused
 * after someone undid that pause at the provider: its `actor` is who undid it.
 */
export interface EnforcementAction {
  id: number;
  at: number;
  account: string;
  domain: string | null;
  action: 'pause' | 'resume' | 'warning' | 'admin_resume' | 'repause';
  actor: string;
  reason: string;
  usage: number | null;
  limitValue: number | null;
  periodStart: number;
  periodEnd: number;
  statusBefore: string | null;
  statusAfter: string | null;
  actionKey: string;
}
