/**
 * Keeps the provider's users and websites in step with the panel. Every handler converges:
 * it reads what exists and sends what should be, so running one event any number of times,
 * or after a crash half-way, leaves the same single user and website.
 */
import type { Logger } from 'pino';
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { PanelEvent } from '../panel/events.js';
import { isProviderError, type ProviderClient, type ProviderWebsite } from '../provider/index.js';
import { AppError, describeError } from '../errors.js';
import { hostPauseOf, unpausedAtProvider, type HostPauseUndone } from './host-pause.js';
import { callbackTokenFor, hashToken, providerUserIdFor, providerUserIdVariant } from './identity.js';
import { isMonitoring } from './monitoring.js';
import { recordReseller, transferAccount } from './reseller-ownership.js';
import { createPackageProtection } from './package-protection.js';
import { createAccountMoves, LEFT_ALONE } from './account-moves.js';
import { servedByTag } from './serving-server.js';
import type { PackagesRepo } from '../db/packages.repo.js';
import type { Account, DesiredStatus, PausedBy, Plan, ProvisioningFailure, Website } from './types.js';

export interface ProvisioningSettings {
  accountDomain: string;
  publicUrl: string;
  /** Derives callback URL tokens (identity.ts); the URL sent and the hash stored always come from it together. */
  callbackKey: string;
  /**
   * This panel server at the provider. `id`: its server id (core/server-identity.ts), tagged on
   * every website it writes and checked before every delete or pause (core/serving-server.ts);
   * absent: a server that does not tell itself apart from others (tests of one server alone).
   */
  server: { ip: string | undefined; name: string; zone: string | undefined; tag: string | undefined; id?: string | undefined };
}

export interface ProvisioningDeps {
  accounts: AccountsRepo;
  provider: ProviderClient;
  /** The client of refreshes' look-ups (reconcile's, an import's, a callback's): background work in the request budget. Default `provider`. */
  refreshProvider?: ProviderClient;
  settings: ProvisioningSettings;
  /** Whether a new website starts protected (`online`) or in `setup`: read per event, an admin may change it at runtime. */
  autoProtect: () => boolean;
  logger: Logger;
  /** How many websites the account may protect (limits); null or absent: no limit. */
  domainLimitFor?: (account: string) => number | null;
  /** The clock of provider reads and facts recorded. Default Date.now. */
  now?: () => number;
  /** Records and reports a host pause undone at the provider (enforcement's repause record), before it is applied again. */
  onHostPauseUndone?: (undone: HostPauseUndone) => void;
  /** Ends the page sessions of a customer whose account was suspended or deleted. */
  endCustomerSessions?: (account: string) => void;
  /** Monitoring first (core/monitoring.ts): when a new website's monitoring ends (null: protect at once), and when a website's still-to-come one does. */
  monitoring?: { startFor(domain: string, plan: Plan): number | null; untilOf(domain: string): number | null };
  /** Protection per hosting package (core/package-protection.ts): its records, the admin's grace period and the release job. */
  packages?: { repo: PackagesRepo; graceMs: () => number; scheduleRelease: (account: string, runAt: number) => void };
}

/** The kv fact that records where an account name went, and when (account.renamed). */
const renameFact = (account: string) => `account_renamed:${account}`;

/**
 * An event that happened under a name before the account was renamed (queued, not yet carried
 * out, when the rename ran) is about the renamed account. Later events under the old name are
 * about whoever has that name now (cPanel may give it to a new account).
 */
function underCurrentName(accounts: Pick<AccountsRepo, 'getFact'>, event: PanelEvent): PanelEvent {
  if (event.type === 'account.renamed') return event;
  let current = event;
  for (let hop = 0; hop < 10; hop++) {
    const fact = accounts.getFact(renameFact(current.account));
    if (!fact) break;
    const { to, at } = JSON.parse(fact) as { to: string; at: string };
    if (Date.parse(event.occurredAt) > Date.parse(at)) break;
    current = { ...current, account: to };
  }
  return current;
}

/** The plan every website falls back to when its account names none, or an unknown one. */
export const DEFAULT_PLAN = 'default';

/**
 * The fact that a website is suspended on its own (a Plesk subscription), apart from its account:
 * both pause it as 'suspension', and the account's reactivation must not end the website's own.
 * Set to the time while it holds, emptied when it ends.
 */
const WEBSITE_SUSPENDED = (domain: string) => `website_suspended:${domain}`;

/** A refusal in the words the pages show: the provider's code and message, else the plugin's. */
const refusalOf = (error: unknown, at: number): ProvisioningFailure => {
  if (isProviderError(error)) return { code: error.providerCode ?? error.code, reason: error.providerMessage ?? error.message, at };
  if (error instanceof AppError) return { code: error.code, reason: error.message, at };
  return { code: 'INTERNAL', reason: describeError(error), at };
};

/** The provider tags of a website: its plan, this panel server (its name, and its id: the server that serves it), and the operator's tag when set. */
const providerTags = (server: ProvisioningSettings['server'], plan: string) => [
  `plan:${plan}`,
  `server:${server.name}`,
  ...(server.id ? [servedByTag(server.id)] : []),
  ...(server.tag ? [server.tag] : []),
];

export interface HandleOptions {
  /** The job has no attempt left after this one: a failure is shown as it is (domain.added). */
  finalAttempt?: boolean;
  /** A background job's event (an import's): the services' choice of the provider's priority (services.ts); not read here. */
  background?: boolean;
}

export function createProvisioning({
  accounts,
  provider,
  refreshProvider = provider,
  settings,
  autoProtect,
  logger,
  domainLimitFor,
  now = Date.now,
  onHostPauseUndone,
  endCustomerSessions,
  monitoring,
  packages,
}: ProvisioningDeps) {
  const planFor = (name: string | null | undefined) =>
    accounts.getPlan(name ?? DEFAULT_PLAN) ??
    accounts.getPlan(DEFAULT_PLAN) ?? { name: DEFAULT_PLAN, settings: {}, subdomains: ['www'], monitorDays: 0 };
  const tagsFor = (plan: string) => providerTags(settings.server, plan);
  const callbackUrlFor = (domain: string) => `${settings.publicUrl}/callbacks/website/${callbackTokenFor(settings.callbackKey, domain)}`;
  // Accounts that move between servers (core/account-moves.ts): adoption, and the check before every pause or removal.
  const moves = createAccountMoves({ provider, accounts, logger, now, autoProtect, settings }, { tagsFor, callbackUrlFor });

  /** Creates the provider user of an account (or finds it) and stores it with its key. */
  async function ensureAccount(
    account: string,
    details: { email?: string | undefined; plan?: string | undefined; reseller?: string | null | undefined },
    verify: boolean,
  ): Promise<Account> {
    const existing = accounts.getAccount(account);
    if (existing?.providerApiKey && !verify) return existing;
    const providerUserId = existing?.providerUserId ?? freeProviderUserId(account);
    const user = await provider.ensureUser(providerUserId);
    // A created user answers with its key; an existing one is read with it.
    const apiKey = user.api_key ?? (await provider.getUser(providerUserId)).api_key ?? null;
    recordReseller(accounts, details.reseller);
    accounts.saveAccount({
      account,
      email: details.email ?? null,
      plan: details.plan ?? null,
      providerUserId,
      providerApiKey: apiKey,
      state: existing && existing.state !== 'deleted' ? existing.state : 'active',
      // Absent: the panel did not say who owns it, and what is stored stays.
      ...(details.reseller === undefined ? {} : { reseller: details.reseller }),
    });
    logger.info({ account, providerUserId, created: !existing }, 'provider user ensured');
    return accounts.getAccount(account) as Account;
  }

  /** A new account's provider user id: its own, unless a renamed account kept that one (then a variant no name maps to). */
  function freeProviderUserId(account: string): string {
    let id = providerUserIdFor(account, settings.accountDomain);
    for (let n = 2; accounts.accountOfProviderUser(id) !== null; n++) id = providerUserIdVariant(account, settings.accountDomain, n);
    return id;
  }

  /** Sends a status and records who paused, keeping the local record and the provider in step. */
  async function applyStatus(website: Website, desiredStatus: DesiredStatus, pausedBy: PausedBy | null, state = website.state) {
    let providerStatus = website.providerStatus;
    if (website.desiredStatus !== desiredStatus || website.providerStatus !== desiredStatus) {
      try {
        const sent = await moves.sendStatus(website, desiredStatus, pausedBy);
        if (sent === LEFT_ALONE) return;
        providerStatus = sent ?? providerStatus;
      } catch (error) {
        // Gone at the provider: nothing left to pause there.
        if (!(isProviderError(error, 'PROVIDER_NOT_FOUND') && desiredStatus === 'paused')) throw error;
        providerStatus = null;
      }
    }
    accounts.saveWebsite({ ...website, desiredStatus, pausedBy, state, providerStatus, providerCheckedAt: now() });
  }

  /**
   * Pauses again a website the provider shows unpaused though the host holds it paused: the customer's own key undid the pause.
   * The undo is recorded first, so a crash before the pause still leaves the record (and the job's retry records nothing twice).
   */
  async function restoreHostPause(website: Website, pausedBy: PausedBy, shownStatus: string, remote: ProviderWebsite): Promise<void> {
    onHostPauseUndone?.({ website, pausedBy, shownStatus, undoneAt: remote.updated_at ?? String(now()) });
    const callbackUrl = callbackUrlFor(website.domain);
    // The same key can change the callback address, so the plugin would not hear of the next undo: it is set back too.
    const answer =
      remote.callbackUrl === callbackUrl
        ? await provider.setWebsiteStatus(website.domain, 'paused')
        : await provider.updateWebsite(website.domain, { status: 'paused', callbackUrl });
    accounts.saveWebsite({ ...website, providerStatus: answer.status ?? 'paused', providerCheckedAt: now() });
    logger.warn(
      { domain: website.domain, account: website.account, pausedBy, shownStatus },
      "the host's pause was undone at the provider: paused again",
    );
  }

  /**
   * The website's row, before the provider is asked: the customer and the admin see the domain
   * from the panel's event on ("setting up"), and still see it if the provider refuses it. Its
   * account's row too when the plugin has none yet (its provider user id only: the key comes
   * with the provider user). A domain that has a row (any account's) keeps it as it is.
   */
  function showFromTheEventOn(event: PanelEvent & { domain: string }): void {
    if (accounts.getWebsite(event.domain)) return;
    const account = accounts.getAccount(event.account);
    if (!account) {
      accounts.saveAccount({
        account: event.account,
        email: event.email ?? null,
        plan: event.plan ?? null,
        providerUserId: freeProviderUserId(event.account),
        providerApiKey: null,
        state: 'active',
      });
    }
    const planName = event.plan ?? account?.plan ?? DEFAULT_PLAN;
    accounts.saveWebsite({
      domain: event.domain,
      account: event.account,
      subdomains: planFor(planName).subdomains,
      originIps: event.ip ? [event.ip] : settings.server.ip ? [settings.server.ip] : [],
      state: 'active',
      desiredStatus: autoProtect() ? 'online' : 'setup',
      pausedBy: null,
      providerStatus: null,
      providerCheckedAt: null,
      callbackTokenHash: hashToken(callbackTokenFor(settings.callbackKey, event.domain)),
      provisionedAt: null,
    });
  }

  /**
   * domain.added: the row first, then the provider. A permanent refusal is kept on a row the
   * provider never accepted (the job goes dead with it: isPermanentProvisioningError), and so
   * is the failure of the job's last attempt; a failure worth retrying leaves it "setting up"
   * while the job is tried again.
   */
  async function domainAdded(event: PanelEvent & { domain: string }, finalAttempt = false): Promise<void> {
    showFromTheEventOn(event);
    if (packageProtection && !packageProtection.includes(event.account)) return packageProtection.keepOut(event.domain);
    try {
      await provisionWebsite(event);
    } catch (error) {
      if (finalAttempt || isPermanentProvisioningError(error)) {
        const refusal = refusalOf(error, now());
        if (accounts.recordProvisioningFailure(event.domain, event.account, refusal))
          logger.warn({ account: event.account, domain: event.domain, code: refusal.code }, 'the provider refused the website');
      }
      throw error;
    }
  }

  async function provisionWebsite(event: PanelEvent & { domain: string }): Promise<void> {
    let account = accounts.getAccount(event.account);
    if (!account?.providerApiKey) account = await ensureAccount(event.account, { email: event.email, plan: event.plan }, false);
    const existing = accounts.getWebsite(event.domain);
    if (existing && existing.account !== event.account && existing.state === 'active') {
      throw new AppError('CONFLICT', `${event.domain} is already protected for panel account ${existing.account}`);
    }
    const planName = event.plan ?? account.plan ?? DEFAULT_PLAN;
    const plan = planFor(planName);
    // A row the provider never accepted (shown from the event on) protects nothing yet: the limit applies to it.
    const alreadyProtected = existing?.state === 'active' && existing.account === event.account && existing.provisionedAt !== null;
    const domainLimit = domainLimitFor?.(event.account) ?? null;
    if (!alreadyProtected && domainLimit !== null && accounts.activeWebsiteCount(event.account, event.domain) >= domainLimit) {
      throw new AppError(
        'LIMIT_REACHED',
        `Account ${event.account} may protect at most ${domainLimit} domain${domainLimit === 1 ? '' : 's'}: ${event.domain} was not protected (domain limit reached)`,
      );
    }
    const originIps = event.ip
      ? [event.ip]
      : existing?.originIps.length
        ? existing.originIps
        : settings.server.ip
          ? [settings.server.ip]
          : [];
    if (originIps.length === 0) {
      throw new AppError('VALIDATION_FAILED', `No origin IP for ${event.domain}: the event names none and WPP_SERVER_IP is not set`);
    }
    // Not this server's yet: another server may serve it (an account moved here), and keeps its settings if so.
    if (!alreadyProtected && (await moves.adoptWebsite(event, account, planName, originIps))) return;
    // Every pause is kept, monitoring (paused by nobody) too: an active website here is this account's (see above).
    const keepsPause = existing?.state === 'active' && existing.desiredStatus === 'paused';
    let desiredStatus: DesiredStatus = autoProtect() ? 'online' : 'setup';
    let pausedBy: PausedBy | null = null;
    if (keepsPause && existing) {
      desiredStatus = 'paused';
      pausedBy = existing.pausedBy;
    } else if (account.state !== 'active') {
      desiredStatus = 'paused';
      pausedBy = account.state === 'suspended' ? 'suspension' : 'account_deleted';
    } else if (desiredStatus === 'online' && !alreadyProtected && (monitoring?.startFor(event.domain, plan) ?? null) !== null) {
      // Monitoring first: at the provider `paused` (watched, nothing blocked) until the schedule switches it on.
      desiredStatus = 'paused';
    }
    const subdomains = existing?.subdomains ?? plan.subdomains;
    const website = {
      user_id: account.providerUserId,
      subdomain: subdomains,
      ip: originIps,
      tag: tagsFor(planName),
      status: desiredStatus,
      callbackUrl: callbackUrlFor(event.domain),
      settings: plan.settings,
    };
    // A domain another customer removed earlier still belongs to their provider user: move it.
    const movedFrom = existing && existing.account !== event.account ? existing.account : null;
    const created = movedFrom
      ? await provider.updateWebsite(event.domain, website).catch((error: unknown) => {
          if (isProviderError(error, 'PROVIDER_NOT_FOUND')) return provider.ensureWebsite({ domain: event.domain, ...website });
          throw error;
        })
      : await provider.ensureWebsite({ domain: event.domain, ...website }).catch((error: unknown) => {
          // "Already exists" was converged by ensureWebsite: what is left is a website another provider user holds.
          // Retrying cannot change whose it is, so it is the plugin's permanent CONFLICT, with the provider's words.
          if (isProviderError(error, 'PROVIDER_CONFLICT'))
            throw new AppError('CONFLICT', error.providerMessage ?? error.message, [], { cause: error });
          throw error;
        });
    if (movedFrom) logger.info({ domain: event.domain, from: movedFrom, to: event.account }, 'website moved to another account');
    accounts.saveWebsite({
      domain: event.domain,
      account: event.account,
      subdomains,
      originIps,
      state: 'active',
      desiredStatus,
      pausedBy,
      providerStatus: created.status ?? null,
      providerCheckedAt: now(),
      callbackTokenHash: hashToken(callbackTokenFor(settings.callbackKey, event.domain)),
      enforcementPausedPeriod: keepsPause && existing ? existing.enforcementPausedPeriod : null,
      adminOverrideUntil: existing && !movedFrom ? existing.adminOverrideUntil : null,
    });
    accounts.markProvisioned(event.domain);
    logger.info({ account: event.account, domain: event.domain, status: desiredStatus }, 'website provisioned');
  }

  /** The local website of an event, or null (with a note) when the plugin does not manage it. */
  function managedWebsite(event: PanelEvent): Website | null {
    const website = event.domain ? accounts.getWebsite(event.domain) : null;
    if (!website || website.state !== 'active' || website.account !== event.account) {
      logger.info(
        { type: event.type, account: event.account, domain: event.domain },
        'event for a website the plugin does not protect: nothing to do',
      );
      return null;
    }
    return website;
  }

  async function changeSubdomains(event: PanelEvent & { subdomain: string }, add: boolean): Promise<void> {
    const website = managedWebsite(event);
    if (!website || (await moves.servedElsewhere(website))) return;
    const subdomains = add
      ? [...new Set([...website.subdomains, event.subdomain])]
      : website.subdomains.filter((label) => label !== event.subdomain);
    // The spec adds a subdomain by sending the whole array; sent even when unchanged, so a replay re-converges.
    await provider.updateWebsite(website.domain, { subdomain: subdomains });
    accounts.saveWebsite({ ...website, subdomains });
  }

  /** Pauses a website for a suspension (its account's, or its own): only what nobody paused; the customer's and the admin's own pauses survive it. */
  async function suspendWebsite(website: Website): Promise<void> {
    if (website.state === 'active' && website.desiredStatus !== 'paused' && website.pausedBy === null) {
      await applyStatus(website, 'paused', 'suspension');
    } else if (website.state === 'active' && (website.pausedBy === 'enforcement' || isMonitoring(website))) {
      // Still paused, but now because of the suspension too; the suspension is the stronger reason
      // (and the monitoring switch leaves a suspension's pause alone).
      accounts.saveWebsite({ ...website, pausedBy: 'suspension' });
    }
  }

  /** The end of a suspension: back to monitoring while its days are still to come, else protected. */
  const endSuspension = (website: Website) =>
    (monitoring?.untilOf(website.domain) ?? null) !== null ? applyStatus(website, 'paused', null) : applyStatus(website, 'online', null);

  /** Whether the panel suspended this website on its own (domain.suspended), apart from its account. */
  const suspendedOnItsOwn = (domain: string) => Boolean(accounts.getFact(WEBSITE_SUSPENDED(domain)));

  /**
   * A website the panel handed to another of its accounts (cPanel's Convert Addon Domain to
   * Account). The provider website stays the same record, only its user changes (a PUT with
   * `user_id`): its settings, rules, subdomains and statistics go with it. A website the plugin
   * does not have yet is protected as a new one.
   */
  async function domainMoved(event: PanelEvent & { domain: string }): Promise<void> {
    const website = accounts.getWebsite(event.domain);
    if (!website) return domainAdded(event);
    let account = accounts.getAccount(event.account);
    if (!account?.providerApiKey) account = await ensureAccount(event.account, { email: event.email, plan: event.plan }, false);
    // Paused because it left its old account: it is back in use. Every other pause stays whose it was.
    const leftOld = website.state !== 'active' || website.pausedBy === 'domain_removed' || website.pausedBy === 'account_deleted';
    let desiredStatus: DesiredStatus = leftOld ? (autoProtect() ? 'online' : 'setup') : website.desiredStatus;
    let pausedBy: PausedBy | null = leftOld ? null : website.pausedBy;
    if (account.state !== 'active' && desiredStatus !== 'paused') {
      desiredStatus = 'paused';
      pausedBy = account.state === 'suspended' ? 'suspension' : 'account_deleted';
    }
    const sameOwner = website.account === event.account && website.state === 'active';
    if (sameOwner && desiredStatus === website.desiredStatus) return;
    const answer = await provider.updateWebsite(event.domain, {
      user_id: account.providerUserId,
      ...(desiredStatus !== website.desiredStatus ? { status: desiredStatus } : {}),
    });
    accounts.saveWebsite({
      ...website,
      account: event.account,
      state: 'active',
      desiredStatus,
      pausedBy,
      providerStatus: answer.status ?? website.providerStatus,
      providerCheckedAt: now(),
    });
    logger.info({ domain: event.domain, from: website.account, to: event.account }, 'website moved to another account, settings kept');
  }

  /** The panel renamed an account: the plugin's account, its websites and history follow the new name. */
  function accountRenamed(event: PanelEvent): void {
    const previous = event.previousAccount as string;
    // Signed in under the old name: those sessions name an account that no longer exists.
    endCustomerSessions?.(previous);
    const outcome = accounts.renameAccount(previous, event.account);
    if (outcome === 'renamed') accounts.setFact(renameFact(previous), JSON.stringify({ to: event.account, at: event.occurredAt }));
    if (outcome === 'taken' && accounts.getAccount(previous)) {
      throw new AppError(
        'CONFLICT',
        `Account ${previous} cannot be renamed to ${event.account}: the plugin already has an account of that name`,
      );
    }
    logger.info({ from: previous, to: event.account, outcome }, 'account renamed');
  }

  /** The account moved to another plan: its websites take the plan's settings and tags. */
  async function planChanged(event: PanelEvent): Promise<void> {
    const account = accounts.getAccount(event.account);
    if (!account) return;
    const planName = event.plan ?? DEFAULT_PLAN;
    const plan = planFor(planName);
    accounts.setAccountPlan(event.account, planName);
    await forEachWebsite(event.account, async (website) => {
      // Not at the provider (refused, or a package without protection): its set-up reads the plan then.
      if (website.state !== 'active' || website.provisionedAt === null || (await moves.servedElsewhere(website))) return;
      await provider.updateWebsite(website.domain, { settings: plan.settings, tag: tagsFor(planName) });
    });
  }

  async function forEachWebsite(account: string, fn: (website: Website) => Promise<void>): Promise<void> {
    for (const website of accounts.websitesOf(account)) await fn(website);
  }
  function packageProtectionOn(options: NonNullable<ProvisioningDeps['packages']>) {
    // Protection per hosting package on provisioning's own steps (core/package-protection.ts).
    return createPackageProtection({
      accounts,
      packages: options.repo,
      provider,
      servingCheck: moves.servingCheck,
      logger,
      now,
      graceMs: options.graceMs,
      scheduleRelease: options.scheduleRelease,
      applyStatus: (website, desiredStatus, pausedBy) => applyStatus(website, desiredStatus, pausedBy),
      provision: (event) => domainAdded(event),
      resume: endSuspension,
      autoProtect,
    });
  }
  const packageProtection = packages ? packageProtectionOn(packages) : null;

  return {
    servingCheck: moves.servingCheck,
    /** `finalAttempt`: the job has no attempt left after this one, so a failure is shown as it is (domain.added). */
    async handle(given: PanelEvent, { finalAttempt = false }: HandleOptions = {}): Promise<void> {
      const event = underCurrentName(accounts, given);
      switch (event.type) {
        case 'account.created':
          await ensureAccount(event.account, { email: event.email, plan: event.plan, reseller: event.reseller }, true);
          await packageProtection?.packageSays(event);
          return;
        case 'account.transferred':
          return transferAccount(accounts, logger, event);
        case 'domain.added':
          // The queue runs one domain.added of an account at a time (see ingest), so the domain-limit check holds.
          return domainAdded(event as PanelEvent & { domain: string }, finalAttempt);
        case 'domain.removed': {
          const website = managedWebsite(event);
          if (website) await applyStatus(website, 'paused', 'domain_removed', 'removed');
          return;
        }
        case 'subdomain.added':
        case 'subdomain.removed':
          return changeSubdomains(event as PanelEvent & { subdomain: string }, event.type === 'subdomain.added');
        case 'account.suspended': {
          // Ended first, before the provider is called, and whether or not the plugin knows the account.
          endCustomerSessions?.(event.account);
          if (!accounts.getAccount(event.account)) return;
          accounts.setAccountState(event.account, 'suspended');
          await forEachWebsite(event.account, suspendWebsite);
          return;
        }
        case 'account.unsuspended': {
          if (!accounts.getAccount(event.account)) return;
          accounts.setAccountState(event.account, 'active');
          await forEachWebsite(event.account, async (website) => {
            // A website suspended on its own (its Plesk subscription) stays paused until that suspension ends.
            if (website.state === 'active' && website.pausedBy === 'suspension' && !suspendedOnItsOwn(website.domain))
              await endSuspension(website);
          });
          return;
        }
        case 'domain.suspended': {
          const website = managedWebsite(event);
          if (!website) return;
          // Recorded first: an account reactivation meanwhile must not resume this website.
          accounts.setFact(WEBSITE_SUSPENDED(website.domain), new Date(now()).toISOString());
          await suspendWebsite(website);
          return;
        }
        case 'domain.unsuspended': {
          const website = managedWebsite(event);
          if (!website) return;
          accounts.setFact(WEBSITE_SUSPENDED(website.domain), '');
          // Still paused while the whole account is suspended: its reactivation resumes it.
          if (website.pausedBy === 'suspension' && accounts.getAccount(website.account)?.state === 'active') await endSuspension(website);
          return;
        }
        case 'account.deleted': {
          endCustomerSessions?.(event.account);
          if (!accounts.getAccount(event.account)) return;
          accounts.setAccountState(event.account, 'deleted');
          await forEachWebsite(event.account, async (website) => {
            if (website.state === 'active') await applyStatus(website, 'paused', 'account_deleted', 'removed');
          });
          return;
        }
        case 'account.renamed':
          return accountRenamed(event);
        case 'domain.moved':
          return domainMoved(event as PanelEvent & { domain: string });
        case 'plan.changed':
          await planChanged(event);
          await packageProtection?.packageSays(event);
          return;
      }
    },

    /**
     * Reads the website's real status from the provider: callbacks and reconciliation never
     * trust a payload. A pause the host holds that the provider no longer shows is applied again.
     */
    async refreshWebsite(domain: string): Promise<void> {
      // Not accepted by the provider yet (being set up, or refused): there is nothing there to read.
      const known = accounts.getWebsite(domain);
      if (!known || known.provisionedAt === null) return;
      let remote: ProviderWebsite;
      try {
        remote = await refreshProvider.lookupWebsite(domain);
      } catch (error) {
        if (!isProviderError(error, 'PROVIDER_NOT_FOUND')) throw error;
        accounts.setProviderStatus(domain, 'missing');
        return;
      }
      // Read again after the look-up: a pause or resume the plugin made meanwhile is the host's decision now.
      const website = accounts.getWebsite(domain);
      if (!website) return;
      // Another server serves it now: this one stops managing it (nothing is written at the provider).
      if (website.state === 'active' && moves.servingCheck?.servedElsewhereBy(website, remote)) return;
      const hostPause = hostPauseOf(website);
      const shownStatus = unpausedAtProvider(remote);
      if (hostPause && shownStatus) return restoreHostPause(website, hostPause, shownStatus, remote);
      accounts.setProviderStatus(domain, remote.status ?? 'unknown');
    },

    releasePackage: async (account: string): Promise<void> => {
      // The package.release job: removes at the provider what a package without protection still has there, once the grace is over.
      await packageProtection?.releaseDue(account);
    },
    /** Registers this panel server with the provider once (POST /v1.0/server). */
    async registerServer(): Promise<'registered' | 'already' | 'skipped'> {
      const { ip, name, zone, tag } = settings.server;
      if (!ip) {
        logger.warn('WPP_SERVER_IP is not set: this panel server is not registered with the provider');
        return 'skipped';
      }
      // Registered again once under its id: a server registered before it had one (or a new server on the same address).
      const serverId = settings.server.id;
      const fact = serverId ? `server_registered:${ip}:${serverId}` : `server_registered:${ip}`;
      if (accounts.getFact(fact)) return 'already';
      // The record's one tag names the server by its id, the tag its websites carry (served-by:...), so the provider can
      // tell the servers apart; the operator's WPP_SERVER_TAG is on every website instead (and here only without an id).
      const serverTag = serverId ? servedByTag(serverId) : tag;
      try {
        await provider.addServer({ ip, name, ...(zone ? { zone } : {}), ...(serverTag ? { tag: serverTag } : {}) });
      } catch (error) {
        if (!isProviderError(error, 'PROVIDER_CONFLICT')) throw error;
      }
      accounts.setFact(fact, new Date(now()).toISOString());
      logger.info({ ip, name, serverId }, 'panel server registered with the provider');
      return 'registered';
    },
  };
}

export type Provisioning = ReturnType<typeof createProvisioning>;

/** 4xx answers that may come out differently later: a timeout, a conflict of the moment, a rate limit. */
const RETRIED_CLIENT_STATUSES: readonly number[] = [408, 409, 429];

/**
 * Errors retrying cannot fix: the job goes dead at once, with the message kept for the admin
 * (and, for a domain.added, the refusal on the website's row). A provider's refusal is a 4xx
 * other than 408, 409 and 429, a domain that does not resolve included: the refusal is shown
 * at once, and the customer's Try again or the admin's Retry asks again once it is fixed. A
 * 401 is the plugin's own key, not a refusal of the domain: retried while the admin mends it.
 * A request refused before sending (invalid locally) is refused again.
 */
export function isPermanentProvisioningError(error: unknown): boolean {
  if (error instanceof AppError) return ['VALIDATION_FAILED', 'CONFLICT', 'LIMIT_REACHED', 'BAD_REQUEST', 'NOT_FOUND'].includes(error.code);
  if (!isProviderError(error)) return false;
  if (error.status === undefined) return error.code === 'PROVIDER_VALIDATION' && !error.sent;
  return error.status >= 400 && error.status < 500 && error.status !== 401 && !RETRIED_CLIENT_STATUSES.includes(error.status);
}
