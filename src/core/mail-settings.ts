/**
 * The admin's e-mail settings (Settings page): which kind goes to which audience, the
 * cooldown, and the admin's address over WPP_ADMIN_EMAIL. Stored as one runtime override
 * (`mail`, setting_overrides) read at every use, so a change applies to the next mail in
 * every process; each change is recorded with who made it (settings_changes).
 */
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { SettingsRepo } from '../db/settings.repo.js';
import { checkedActor } from './plugin-settings.js';
import { WEBSITE_MAIL_KINDS, type MailAudience } from './mail-content.js';

/** What can be switched off: each website kind per customer and reseller, and the admin's digest. */
export const MAIL_SWITCHES = [
  ...WEBSITE_MAIL_KINDS.map((kind) => `customer.${kind}` as const),
  ...WEBSITE_MAIL_KINDS.map((kind) => `reseller.${kind}` as const),
  'admin.digest',
] as const;
export type MailSwitch = (typeof MAIL_SWITCHES)[number];

export const DEFAULT_COOLDOWN_HOURS = 24;

export const mailSettingsSchema = z.object({
  off: z.array(z.enum(MAIL_SWITCHES)).default([]),
  cooldownHours: z.number().int().min(1).max(720).default(DEFAULT_COOLDOWN_HOURS),
  /** Null: WPP_ADMIN_EMAIL applies. */
  adminEmail: z.email().nullable().default(null),
});
export type MailSettingsValue = z.output<typeof mailSettingsSchema>;

const OVERRIDE = 'mail';

export function createMailSettings(
  repo: Pick<SettingsRepo, 'getOverride' | 'setOverride' | 'recordChange' | 'writeTransaction'>,
  environment: { adminEmail: string | undefined },
) {
  const current = (): MailSettingsValue => {
    const parsed = mailSettingsSchema.safeParse(repo.getOverride(OVERRIDE)?.value ?? {});
    return parsed.success ? parsed.data : mailSettingsSchema.parse({});
  };
  return {
    current,
    /** Whether this audience gets this kind. */
    isOn: (audience: MailAudience, kind: string): boolean => !(current().off as string[]).includes(`${audience}.${kind}`),
    cooldownMs: (): number => current().cooldownHours * 3_600_000,
    /** The admin digest's recipient: the page's address, else WPP_ADMIN_EMAIL; null: none. */
    adminEmail: (): string | null => current().adminEmail ?? environment.adminEmail ?? null,
    environmentAdminEmail: environment.adminEmail ?? null,
    /** Stores the admin's choice (already parsed); records it when it changes anything. */
    change(value: MailSettingsValue, actor: string): boolean {
      const who = checkedActor(actor);
      return repo.writeTransaction(() => {
        const before = current();
        if (isDeepStrictEqual(before, value)) return false;
        repo.setOverride(OVERRIDE, value, who);
        repo.recordChange(who, OVERRIDE, before, value);
        return true;
      });
    },
  };
}

export type MailSettings = ReturnType<typeof createMailSettings>;
