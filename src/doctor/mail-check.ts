/**
 * `wpp doctor`'s mail line: with WPP_SMTP_URL set, the SMTP server is asked to take the login
 * (connect, greeting, STARTTLS or TLS, AUTH) without sending anything. The URL is shown with
 * its password redacted; a refused login says so without repeating it.
 */
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';
import { describeSmtpUrl, withoutSmtpPassword } from '../core/mail.js';
import { describeError } from '../errors.js';
import { fail, ok, SkipCheck, type CheckResult } from './doctor.js';

/** Inside the check's own deadline (doctor.ts, 5 s). */
const VERIFY_TIMEOUT_MS = 4000;

export async function checkMail(config: Config): Promise<CheckResult> {
  const { smtpUrl, from } = config.mail;
  if (!smtpUrl) throw new SkipCheck('WPP_SMTP_URL is unset: no mail is sent (the admin pages say so)');
  const shown = describeSmtpUrl(smtpUrl);
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: VERIFY_TIMEOUT_MS,
    greetingTimeout: VERIFY_TIMEOUT_MS,
    socketTimeout: VERIFY_TIMEOUT_MS,
  });
  try {
    await transport.verify();
    return ok(`${shown} answered and took the login; mails from ${from ?? '?'}`);
  } catch (error) {
    return fail(`${shown}: ${withoutSmtpPassword(describeError(error), smtpUrl)}; no mail can be sent`);
  } finally {
    transport.close();
  }
}
