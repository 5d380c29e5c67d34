/**
 * E-mail to the right people (issue 22): who is told of what, in which language, and when not
 * again. Enforcement actions and the monitoring switch become website events; a customer's
 * mail is queued at once (an `email.send` job), a reseller's event waits for the reseller's
 * daily digest, and the admin gets a daily digest of what needs a look. Every mail passes the
 * admin's switches (core/mail-settings.ts) and the cooldown (mail_log) before it is queued,
 * and is rendered when sent (core/mail-content.ts) from data that holds no secret. Nothing is
 * queued while no SMTP server is set (WPP_SMTP_URL); sending never runs on a request.
 */
import { z } from 'zod';
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { DigestEventRow, MailRepo } from '../db/mail.repo.js';
import type { Format } from './format.js';
import type { Translate } from './i18n.js';
import { resolveLocale, type SupportedLocale } from './locale.js';
import {
  adminDigestSchema,
  renderMail,
  type MailAudience,
  type MailJob,
  type MailMessage,
  type RenderedMail,
  type WebsiteEvent,
  type WebsiteMailKind,
  websiteEventSchema,
} from './mail-content.js';
import type { MailSettings } from './mail-settings.js';
import type { EnforcementNotice } from './notifications.js';

/** How long an SMTP server may take to connect, greet and answer before the send fails (and its job is retried). */
export const SMTP_TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 30_000 };

/** An SMTP URL as the admin pages and `wpp doctor` show it: the password never, the user and server so the admin knows which. */
export function describeSmtpUrl(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  const user = url.username ? `${decodeURIComponent(url.username)}${url.password ? ':[redacted]' : ''}@` : '';
  return `${url.protocol}//${user}${url.host}`;
}

/**
 * A text about the SMTP server (an error it caused) without the URL's password: what SMTP
 * libraries say may quote the login, and such a text reaches a job's last_error, the log and
 * the admin's digest.
 */
export function withoutSmtpPassword(text: string, smtpUrl: string): string {
  const password = decodeURIComponent(new URL(smtpUrl).password);
  return password ? text.split(password).join('[redacted]') : text;
}

/** What SMTP is handed: the rendered mail and its recipient. */
export interface OutgoingMail extends RenderedMail {
  to: string;
}

export interface MailDeps {
  repo: MailRepo;
  accounts: Pick<AccountsRepo, 'getAccount' | 'getReseller'>;
  settings: MailSettings;
  /** Sends one mail through SMTP (throws to be retried); null while WPP_SMTP_URL is unset. */
  send: ((mail: OutgoingMail) => Promise<void>) | null;
  /** Queues an `email.send` job (core/job-queue.ts). */
  queue: (job: MailJob) => void;
  /** The translate function and formatter of each language. */
  languages: Record<SupportedLocale, { t: Translate; format: Format }>;
  hostName: string | undefined;
  /** The host's upgrade page for an account and website (WPP_UPGRADE_URL), or undefined. */
  upgradeUrl: (account: string, domain: string) => string | undefined;
  now: () => number;
  /** Told when a mail could not be queued: enforcement and the monitoring switch go on regardless. */
  onError?: (error: unknown, what: string) => void;
}

/** Which enforcement actions a customer is told of, and as what. */
const ACTION_KINDS: Partial<Record<EnforcementNotice['action'], WebsiteMailKind>> = {
  warning: 'approaching',
  pause: 'paused',
  repause: 'paused',
  resume: 'resumed',
  admin_resume: 'resumed',
};

/** The enforcement reasons of the reseller's pool (core/quota.ts): their usage and limit are all the reseller's customers'. */
const POOL_REASONS = new Set(['reseller_warning', 'reseller_limit']);

/** The share of the pool used, in whole percent (rounded down: 99.6 % is not yet 100). */
const poolPercent = (usage: number | null, limit: number | null): number =>
  usage === null || limit === null || limit <= 0 ? 0 : Math.floor((usage * 100) / limit);

/**
 * What the customer's own mail may carry of an event: of the reseller's pool, not its hits and
 * limit, which count every customer of the reseller (the reseller's digest has them).
 */
const forCustomer = (event: WebsiteEvent): WebsiteEvent => (event.pool ? { ...event, usage: null, limit: null } : event);

/** A day: the subject of a digest's cooldown, so a day's digest goes once however often the schedule asks. */
const DAY_MS = 86_400_000;

export function createMailer(deps: MailDeps) {
  const { repo, settings, now } = deps;
  const enabled = () => deps.send !== null;

  /** Queues one mail unless switched off or sent within the cooldown; true when queued. */
  function queueMail(
    to: string,
    audience: MailAudience,
    kind: string,
    subjectKey: string,
    locale: SupportedLocale,
    message: MailMessage,
  ): boolean {
    const at = now();
    const job = repo.transaction(() => {
      if (repo.sentSince(to, kind, subjectKey, at - settings.cooldownMs())) return null;
      const logId = repo.logQueued(to, kind, subjectKey, at);
      return { logId, to, locale, audience, message };
    });
    if (job) deps.queue(job);
    return job !== null;
  }

  /** A website event: the customer's mail now, the reseller's digest later; a failure here never stops the caller's pass. */
  function tell(event: WebsiteEvent): void {
    if (!enabled()) return;
    try {
      tellNow(event);
    } catch (error) {
      deps.onError?.(error, `${event.kind} ${event.domain ?? event.account}`);
    }
  }

  function tellNow(event: WebsiteEvent): void {
    const account = deps.accounts.getAccount(event.account);
    if (!account) return;
    // The pool's warning is not the account's own: one does not hold back the other's mail.
    const subjectKey = event.domain ?? `${event.pool ? 'pool' : 'account'}:${event.account}`;
    if (account.email && settings.isOn('customer', event.kind)) {
      const parsed = z.email().safeParse(account.email);
      const locale = resolveLocale(repo.accountLocale(event.account));
      if (parsed.success)
        queueMail(parsed.data, 'customer', event.kind, subjectKey, locale, { kind: 'website', event: forCustomer(event) });
    }
    if (account.reseller && settings.isOn('reseller', event.kind))
      repo.addDigestEvent({
        reseller: account.reseller,
        account: event.account,
        domain: event.domain,
        kind: event.kind,
        at: event.at,
        data: event,
      });
  }

  /** An enforcement action (core/enforcement.ts's notify hook): a warning, pause or resume. */
  function onEnforcementAction(action: EnforcementNotice): void {
    const kind = ACTION_KINDS[action.action];
    if (!kind) return;
    const upgrade = kind === 'paused' && action.domain ? deps.upgradeUrl(action.account, action.domain) : undefined;
    const pool = POOL_REASONS.has(action.reason) ? { pool: { percent: poolPercent(action.usage, action.limitValue) } } : {};
    tell({
      ...pool,
      kind,
      account: action.account,
      domain: action.domain,
      at: action.at,
      usage: action.usage,
      limit: action.limitValue,
      periodEnd: action.periodEnd,
      forecastAt: action.forecastAt ?? null,
      upgradeUrl: upgrade ?? null,
    });
  }

  /** A website switched from monitoring to protecting (core/monitoring.ts). */
  const onMonitoringSwitched = (website: { domain: string; account: string }): void =>
    tell({ kind: 'protecting', account: website.account, domain: website.domain, at: now() });

  /**
   * The daily digests: each reseller's waiting events in one mail, and the admin's digest.
   * Nothing is lost: a reseller's events are marked digested only once a digest carrying them
   * is queued, and the admin digest's window moves on only then, so a run the cooldown skips
   * (the day's digest already went) leaves them for the next digest.
   */
  function sendDigests(): { resellers: number; admin: boolean } {
    if (!enabled()) return { resellers: 0, admin: false };
    const at = now();
    const day = new Date(at).toISOString().slice(0, 10);
    let resellers = 0;
    const byReseller = new Map<string, DigestEventRow[]>();
    for (const row of repo.waitingDigestEvents()) byReseller.set(row.reseller, [...(byReseller.get(row.reseller) ?? []), row]);
    for (const [name, rows] of byReseller) if (sendResellerDigest(name, rows, day, at)) resellers++;
    return { resellers, admin: sendAdminDigest(day, at) };
  }

  /** One reseller's digest of its waiting events; true when queued. */
  function sendResellerDigest(name: string, rows: DigestEventRow[], day: string, at: number): boolean {
    const waiting = rows.map((row) => ({ id: row.id, event: websiteEventSchema.parse(JSON.parse(row.data)) }));
    const email = deps.accounts.getReseller(name)?.email;
    const to = email ? z.email().safeParse(email) : undefined;
    // Dropped, as they can never be sent: the reseller has no address to send to, or the admin
    // switched the kind off for resellers after the event was kept (it is not kept while off).
    const dropped = to?.success ? waiting.filter((row) => !settings.isOn('reseller', row.event.kind)) : waiting;
    repo.markDigested(
      dropped.map((row) => row.id),
      at,
    );
    const droppedIds = new Set(dropped.map((row) => row.id));
    const kept = waiting.filter((row) => !droppedIds.has(row.id));
    if (!to?.success || kept.length === 0) return false;
    // The reseller pages' language, else an account of the same name's (cPanel resellers are accounts too), else English.
    const locale = resolveLocale(repo.resellerLocale(name) ?? repo.accountLocale(name));
    const events = kept.map((row) => row.event);
    if (!queueMail(to.data, 'reseller', 'reseller_digest', day, locale, { kind: 'reseller_digest', reseller: name, events })) return false;
    // Marked only now: skipped by the cooldown (the day's digest went already), they wait for the next one.
    repo.markDigested(
      kept.map((row) => row.id),
      at,
    );
    return true;
  }

  /**
   * The admin's digest of what happened since the last one that was queued (or switched off,
   * or had no address: then nobody waits for what it would have said); true when queued.
   */
  function sendAdminDigest(day: string, at: number): boolean {
    const adminEmail = settings.adminEmail();
    if (adminEmail === null || !settings.isOn('admin', 'digest')) {
      repo.recordDigestsAt(at);
      return false;
    }
    const since = repo.lastDigestsAt() ?? at - DAY_MS;
    const digest = adminDigestSchema.parse({ since, until: at, ...repo.adminDigest(since) });
    const queued = queueMail(adminEmail, 'admin', 'admin_digest', day, resolveLocale(repo.adminLocale()), { kind: 'admin_digest', digest });
    // Moved on only when queued: a run the cooldown skipped leaves its window to the next digest.
    if (queued) repo.recordDigestsAt(at);
    return queued;
  }

  /** An `email.send` job: renders the mail in its language and hands it to SMTP (throws to be retried). */
  async function deliver(job: MailJob): Promise<void> {
    // SMTP unset since the mail was queued: it finishes without sending, as notifications do when turned off.
    if (deps.send === null) return;
    const language = deps.languages[job.locale];
    await deps.send({ to: job.to, ...renderMail(job.message, { ...language, hostName: deps.hostName }) });
    repo.markSent(job.logId, now());
  }

  return { enabled, onEnforcementAction, onMonitoringSwitched, sendDigests, deliver };
}

export type Mailer = ReturnType<typeof createMailer>;
