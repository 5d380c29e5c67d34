/**
 * The e-mails' assembly (core/mail.ts): the SMTP transport (nodemailer) when WPP_SMTP_URL is
 * set, the admin's switches, the readers' languages, and the job queue's `email.send`.
 */
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import { describeError } from '../errors.js';
import { upgradeUrl, type Config } from '../config.js';
import { createFormat } from '../core/format.js';
import { createTranslations, loadCatalogs } from '../core/i18n.js';
import type { JobQueue } from '../core/job-queue.js';
import { SUPPORTED_LOCALES } from '../core/locale.js';
import { createMailer, describeSmtpUrl, SMTP_TIMEOUTS, withoutSmtpPassword, type OutgoingMail } from '../core/mail.js';
import { createMailSettings } from '../core/mail-settings.js';
import type { AccountsRepo } from '../db/accounts.repo.js';
import { createMailRepo } from '../db/mail.repo.js';
import type { Db } from '../db/open.js';
import type { SettingsRepo } from '../db/settings.repo.js';
import { paths } from '../paths.js';

/**
 * Sends through the SMTP URL: smtps:// is TLS from the start, smtp:// upgrades with STARTTLS
 * when the server offers it. The URL (with its password) stays inside the transport; an error
 * is thrown on (the job's last_error, the log, the admin digest) with the password taken out.
 */
export function smtpSender(smtpUrl: string, from: string): (mail: OutgoingMail) => Promise<void> {
  const transport = nodemailer.createTransport({ url: smtpUrl, ...SMTP_TIMEOUTS }, { from });
  return async (mail) => {
    try {
      await transport.sendMail({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    } catch (error) {
      // No `cause`: the original error is what may quote the password.
      // eslint-disable-next-line preserve-caught-error
      throw new Error(withoutSmtpPassword(describeError(error), smtpUrl));
    }
  };
}

export function wireMail(parts: {
  config: Config;
  db: Db;
  accounts: AccountsRepo;
  audit: SettingsRepo;
  queue: Pick<JobQueue, 'sendMail'>;
  logger: Logger;
  now: () => number;
}) {
  const { config } = parts;
  const { smtpUrl, from } = config.mail;
  const translations = createTranslations(loadCatalogs(paths.locales));
  const languages = Object.fromEntries(
    SUPPORTED_LOCALES.map((locale) => [
      locale,
      { t: translations[locale], format: createFormat({ locale, timeZone: config.pages.timeZone }) },
    ]),
  ) as Parameters<typeof createMailer>[0]['languages'];
  const settings = createMailSettings(parts.audit, { adminEmail: config.mail.adminEmail });
  const template = config.pages.upgradeUrl;
  const mailer = createMailer({
    repo: createMailRepo(parts.db),
    accounts: parts.accounts,
    settings,
    send: smtpUrl && from ? smtpSender(smtpUrl, from) : null,
    queue: (job) => parts.queue.sendMail(job),
    languages,
    hostName: config.mail.hostName,
    upgradeUrl: (account, domain) => (template ? upgradeUrl(template, { account, domain }) : undefined),
    now: parts.now,
    onError: (error, what) => parts.logger.warn({ error: describeError(error), mail: what }, 'a mail could not be queued'),
  });
  /** What the admin pages say about e-mail: off, or through which server from which sender. */
  const status = smtpUrl && from ? { on: true as const, server: describeSmtpUrl(smtpUrl), from } : { on: false as const };
  return { mailer, settings, status };
}

export type WiredMail = ReturnType<typeof wireMail>;
