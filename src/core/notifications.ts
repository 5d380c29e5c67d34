/**
 * Notifications: every enforcement action (pause, resume, warning, admin resume, repause) is POSTed
 * to WPP_NOTIFY_URL as signed JSON. The action is queued as a `notification.send` job in the
 * same process that recorded it, so delivery is retried with the jobs' backoff and survives
 * a restart; the action key makes a repeated pass queue it once.
 */
import { z } from 'zod';
import type { EnforcementAction } from './types.js';
import { signBody } from './signature.js';

/** The action as stored in enforcement_actions, without its row id: the notification's content. */
export const enforcementNoticeSchema = z.object({
  at: z.number(),
  account: z.string(),
  domain: z.string().nullable(),
  action: z.enum(['pause', 'resume', 'warning', 'admin_resume', 'repause']),
  actor: z.string(),
  reason: z.string(),
  usage: z.number().nullable(),
  limitValue: z.number().nullable(),
  periodStart: z.number(),
  periodEnd: z.number(),
  statusBefore: z.string().nullable(),
  statusAfter: z.string().nullable(),
  actionKey: z.string().min(1),
  /**
   * With a warning: when the limit it warns of will be reached at the current rate (epoch
   * ms; null: not this period). Not stored with the action: the forecast as of the warning.
   */
  forecastAt: z.number().nullable().optional(),
}) satisfies z.ZodType<Omit<EnforcementAction, 'id'>>;

export type EnforcementNotice = z.output<typeof enforcementNoticeSchema>;

/** An attack spike noticed on a website (core/read-learning.ts): the notification's content. */
export const spikeNoticeSchema = z.object({
  domain: z.string().min(1),
  account: z.string().min(1),
  kind: z.literal('attack_spike'),
  startedAt: z.number(),
  blockedPerHour: z.number(),
  baselinePerHour: z.number(),
});

export type SpikeNoticePayload = z.output<typeof spikeNoticeSchema>;

/** POSTs an attack spike's notice to the notification URL; throws (to be retried) unless it answers 2xx. */
export async function sendSpikeNotice(target: NotificationTarget, notice: SpikeNoticePayload): Promise<void> {
  await postSigned(target, { event: 'website.attack_spike', notice });
}

export interface NotificationTarget {
  url: string;
  /** The notification secret (WPP_NOTIFY_SECRET or generated): receivers check X-WPP-Signature with it. */
  secret: string;
  /** Per delivery attempt. Default 10000 ms. */
  timeoutMs?: number;
}

/** POSTs one action to the notification URL; throws (to be retried) unless it answers 2xx. */
export async function sendNotification(target: NotificationTarget, action: EnforcementNotice): Promise<void> {
  await postSigned(target, { event: 'enforcement.action', action });
}

/** POSTs a JSON payload to the notification URL, signed (X-WPP-Signature); throws unless it answers 2xx. */
export async function postSigned(target: NotificationTarget, payload: unknown): Promise<void> {
  const body = JSON.stringify(payload);
  const response = await fetch(target.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wpp-signature': signBody(body, target.secret) },
    body,
    signal: AbortSignal.timeout(target.timeoutMs ?? 10_000),
  });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`the notification URL answered ${response.status}`);
}

/**
 * The enforcement's notify hook: queues an action's notification only while a URL is effective
 * (core/plugin-settings.ts), read per action, so an admin turning notifications off or on
 * applies to the next action without a restart.
 */
export const notifyWhileOn =
  <T>(notifyUrl: () => string | null, queue: (payload: T) => void) =>
  (payload: T): void => {
    if (notifyUrl() !== null) queue(payload);
  };

/** The dedupe key of a spike's notification job: one delivery per spike. */
export const spikeNotificationKey = (notice: SpikeNoticePayload): string => `notify:spike:${notice.domain}:${notice.startedAt}`;

/** The dedupe key of an action's notification job: one delivery per action, however often it is recorded. */
export const notificationKey = (action: EnforcementNotice): string => `notify:${action.actionKey}`;
