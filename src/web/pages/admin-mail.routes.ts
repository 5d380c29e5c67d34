/**
 * The admin's e-mail settings (issue 22): whether mail is on (WPP_SMTP_URL, shown without its
 * password) on the overview and the Settings page, and the Settings page's E-mail form: each
 * kind per audience, the cooldown, the admin's address. The form posts here; the page shows
 * it through views/admin/_mail-settings.ejs with what this router puts in `res.locals`.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { MAIL_SWITCHES, type MailSettings } from '../../core/mail-settings.js';
import type { Translate } from '../../core/i18n.js';
import { AppError } from '../../errors.js';
import { sessionAdmin } from './session.middleware.js';

export interface MailPagesDeps {
  settings: MailSettings;
  /** Off (no WPP_SMTP_URL), or the server as shown (its password redacted) and the sender. */
  status: { on: false } | { on: true; server: string; from: string };
}

/** What the form may come back with (?mail=...): saved, or which field was refused. */
const OUTCOMES = ['saved', 'badCooldown', 'badEmail'] as const;

const mailForm = z.object({
  cooldownHours: z.string().trim().optional().default(''),
  adminEmail: z.string().trim().optional().default(''),
});

/** A switch's checkbox: `send-customer-approaching` for customer.approaching; a box left unchecked is not sent. */
export const switchField = (name: string): string => `send-${name.replace('.', '-')}`;

export function createAdminMailRouter(deps: MailPagesDeps): express.Router {
  const router = express.Router();
  router.use((_req: Request, res: Response, next: NextFunction) => {
    res.locals.mailStatus = deps.status;
    next();
  });
  router.get('/settings', (req: Request, res: Response, next: NextFunction) => {
    const outcome = OUTCOMES.find((name) => name === req.query.mail);
    res.locals.mailSettings = {
      current: deps.settings.current(),
      environmentAdminEmail: deps.settings.environmentAdminEmail,
      switches: MAIL_SWITCHES,
      outcome,
    };
    next();
  });
  router.post('/settings/mail', (req: Request, res: Response) => {
    const parsed = mailForm.safeParse(req.body ?? {});
    if (!parsed.success) throw new AppError('BAD_REQUEST', (res.locals.t as Translate)('adminSettings.cannotRead'));
    const form = parsed.data;
    const before = deps.settings.current();
    const cooldown = form.cooldownHours === '' ? before.cooldownHours : Number(form.cooldownHours);
    if (!Number.isInteger(cooldown) || cooldown < 1 || cooldown > 720) return res.redirect(303, '/admin/settings?mail=badCooldown#mail');
    const email = form.adminEmail === '' ? null : z.email().safeParse(form.adminEmail);
    if (email !== null && !email.success) return res.redirect(303, '/admin/settings?mail=badEmail#mail');
    const body = (req.body ?? {}) as Record<string, unknown>;
    deps.settings.change(
      { off: MAIL_SWITCHES.filter((name) => body[switchField(name)] !== 'on'), cooldownHours: cooldown, adminEmail: email?.data ?? null },
      `admin:${sessionAdmin(req)}`,
    );
    res.redirect(303, '/admin/settings?mail=saved#mail');
  });
  return router;
}
