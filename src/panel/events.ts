/**
 * The one panel event schema every adapter translates into (docs/panel-events.md).
 * Adapters only translate; everything after this schema is panel-independent.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';
import { normalizeDomain, normalizeSubdomain } from '../provider/spec.js';

export const PANEL_EVENT_TYPES = [
  'account.created',
  'account.suspended',
  'account.unsuspended',
  'account.deleted',
  'domain.added',
  'domain.removed',
  /** One website suspended on its own (a Plesk subscription), not its whole account. */
  'domain.suspended',
  'domain.unsuspended',
  'subdomain.added',
  'subdomain.removed',
  'plan.changed',
  // A panel account given a new name (cPanel modifyacct): `account` is the new name, `previousAccount` the old one.
  'account.renamed',
  // A website handed to another account of the same panel (cPanel's Convert Addon Domain to Account): `account` takes it over.
  'domain.moved',
  // The account handed to another reseller (or to the host itself: `reseller` null), e.g. WHM's modifyacct OWNER.
  'account.transferred',
] as const;
export type PanelEventType = (typeof PANEL_EVENT_TYPES)[number];

/** Which fields each event type needs beyond `account`. */
const REQUIRED_FIELDS: Record<PanelEventType, readonly ('domain' | 'subdomain' | 'plan' | 'previousAccount' | 'reseller')[]> = {
  'account.created': [],
  'account.suspended': [],
  'account.unsuspended': [],
  'account.deleted': [],
  'domain.added': ['domain'],
  'domain.removed': ['domain'],
  'domain.suspended': ['domain'],
  'domain.unsuspended': ['domain'],
  'subdomain.added': ['domain', 'subdomain'],
  'subdomain.removed': ['domain', 'subdomain'],
  'plan.changed': ['plan'],
  'account.renamed': ['previousAccount'],
  'domain.moved': ['domain'],
  'account.transferred': ['reseller'],
};

/** The events that may say who owns the account: its creation and a transfer (the others leave the owner as stored). */
const RESELLER_EVENTS: readonly PanelEventType[] = ['account.created', 'account.transferred'];

/** Panel user names: cPanel/DirectAdmin use [a-z0-9], Plesk logins may also hold . _ - @. */
export const accountNameSchema = z
  .string()
  .trim()
  .min(1, 'account is required')
  .max(255, 'account is at most 255 characters')
  .regex(/^[A-Za-z0-9._@+-]+$/, 'account may only contain letters, digits and . _ @ + -')
  // Panels compare user names without case; so does the plugin.
  .toLowerCase();

/** A problem of accountNameSchema in the reader's language (a page's forms); the schema's own words stay the API's and the CLI's. */
export function accountNameMessage(issue: z.core.$ZodIssue, t: (key: string) => string): string {
  if (issue.code === 'too_small' || issue.code === 'invalid_type') return t('accountName.required');
  if (issue.code === 'too_big') return t('accountName.tooLong');
  if (issue.code === 'invalid_format') return t('accountName.characters');
  return issue.message;
}

export const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .transform((value) => (value === '' ? undefined : value))
    .optional();

/** A string the panel may spell loosely (case, IDN, trailing dot), checked and normalised. */
export const normalized = (normalize: (value: string) => string | null, what: string) =>
  z.string().transform((value, ctx) => {
    const result = normalize(value);
    if (result === null) {
      ctx.addIssue({ code: 'custom', message: `"${value}" is not a valid ${what}` });
      return z.NEVER;
    }
    return result;
  });

/** An e-mail address as panels send it: empty means none; kept lower-case. */
export const optionalEmailSchema = z
  .string()
  .trim()
  .max(254)
  .refine((value) => value === '' || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value), 'email must be an e-mail address')
  .transform((value) => (value === '' ? undefined : value.toLowerCase()))
  .optional();

/** An IPv4 or IPv6 address; empty means none. */
export const optionalIpSchema = z
  .string()
  .trim()
  .refine((value) => value === '' || isIP(value) !== 0, 'ip must be an IPv4 or IPv6 address')
  .transform((value) => (value === '' ? undefined : value.toLowerCase()))
  .optional();

export const panelEventSchema = z
  .strictObject({
    id: z.string().trim().min(1).max(200),
    type: z.enum(PANEL_EVENT_TYPES),
    occurredAt: z.iso.datetime({ offset: true }),
    account: accountNameSchema,
    email: optionalEmailSchema,
    plan: optionalText(100),
    domain: normalized(normalizeDomain, 'domain name').optional(),
    subdomain: normalized(normalizeSubdomain, 'subdomain label').optional(),
    ip: optionalIpSchema,
    /** account.renamed only: the name the account had. */
    previousAccount: accountNameSchema.optional(),
    /**
     * The panel reseller who owns the account (account.created, account.transferred): absent, the
     * panel did not say (what is stored stays); null, the host's own account (root or admin made it).
     */
    reseller: accountNameSchema.nullable().optional(),
    /** account.created and plan.changed: whether the account's hosting package includes web protection; absent: the panel does not say. */
    protection: z.boolean().optional(),
  })
  .superRefine((event, ctx) => {
    if (event.previousAccount !== undefined && event.type !== 'account.renamed') {
      ctx.addIssue({ code: 'custom', path: ['previousAccount'], message: `previousAccount belongs to account.renamed, not ${event.type}` });
    }
    if (event.type === 'account.renamed' && event.previousAccount === event.account) {
      ctx.addIssue({ code: 'custom', path: ['previousAccount'], message: 'a rename needs a new name: previousAccount equals account' });
    }
    if (event.reseller !== undefined && !RESELLER_EVENTS.includes(event.type)) {
      ctx.addIssue({
        code: 'custom',
        path: ['reseller'],
        message: `reseller belongs to ${RESELLER_EVENTS.join(' or ')}, not ${event.type}`,
      });
    }
    if (event.protection !== undefined && event.type !== 'account.created' && event.type !== 'plan.changed') {
      ctx.addIssue({
        code: 'custom',
        path: ['protection'],
        message: `protection belongs to account.created and plan.changed, not ${event.type}`,
      });
    }
    for (const field of REQUIRED_FIELDS[event.type]) {
      if (event[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: `${field} is required for ${event.type}` });
    }
  });

export type PanelEvent = z.output<typeof panelEventSchema>;
export type PanelEventInput = z.input<typeof panelEventSchema>;

/** What an adapter hands over before the id and time are settled. */
export type PanelEventDraft = Omit<PanelEventInput, 'id' | 'occurredAt'> & { id?: string; occurredAt?: string };

/**
 * Panels hand hooks no event id, so adapters derive one from what happened and when, to the
 * minute: a hook that fires twice (a panel retry, a double registration) yields the same id
 * and is ingested once. An event repeated in a later minute is a second event; processing is
 * idempotent, so it changes nothing either.
 */
export function deriveEventId(source: string, draft: PanelEventDraft, occurredAt: Date): string {
  return eventIdOf(source, draft, String(Math.floor(occurredAt.getTime() / 60_000)));
}

/**
 * The id of what the draft says happened at `moment` (deriveEventId's minute, or a panel's own
 * stamp of the change, e.g. Virtualmin's save time): every field counts, so two different
 * changes stamped alike (a feature turned off, then on, within one second) stay two events.
 */
export function eventIdOf(source: string, draft: PanelEventDraft, moment: string): string {
  // Every field counts: Plesk's domain_create and phys_hosting_create name the same domain, only one with its IP.
  const parts = [
    source,
    draft.type,
    draft.account,
    draft.domain ?? '',
    draft.subdomain ?? '',
    draft.plan ?? '',
    draft.email ?? '',
    draft.ip ?? '',
    // Only when present: every id derived before account.renamed existed stays what it was.
    ...(draft.previousAccount ? [draft.previousAccount] : []),
    // Likewise the reseller, when the panel named one: null (the host's own) is marked apart from a name.
    ...(draft.reseller === undefined ? [] : [`reseller:${draft.reseller ?? ''}`]),
    ...(draft.protection !== undefined ? [`protection=${draft.protection}`] : []),
    moment,
  ];
  return `${source}:${createHash('sha256').update(parts.join('\u0000').toLowerCase()).digest('hex').slice(0, 32)}`;
}

/** Whether `id` is one deriveEventId made (`<source>:<32 hex>`), not a panel's or a caller's own. */
export const isDerivedEventId = (id: string) => /^[a-z]+:[0-9a-f]{32}$/.test(id);

/** Completes a draft with a derived id and the time, then validates it. */
export function finishEvent(source: string, draft: PanelEventDraft, now: Date = new Date()) {
  const occurredAt = draft.occurredAt ?? now.toISOString();
  const id = draft.id ?? deriveEventId(source, draft, new Date(occurredAt));
  return panelEventSchema.safeParse({ ...draft, id, occurredAt });
}
