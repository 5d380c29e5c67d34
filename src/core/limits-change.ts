/**
 * The rules of one change to the limits table, shared by `wpp limits` and the admin Settings
 * page: which row (scope and subject, normalized as enforcement looks it up) and which values
 * (`none` clears one, so it is inherited again). Pure: the caller says which subjects exist.
 *
 * Every problem is keyed by the field it is about, with a message meant to be shown next to
 * it; `reason` lets each front end word the problem its own way (the CLI keeps its --option
 * wording). Nothing is stored unless every field is right.
 */
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { SettingsRepo } from '../db/settings.repo.js';
import type { LimitScope, StatisticsRepo } from '../db/statistics.repo.js';
import { accountNameMessage, accountNameSchema } from '../panel/events.js';
import { normalizeDomain } from '../provider/spec.js';
import type { Translate } from './i18n.js';
import { checkedActor } from './plugin-settings.js';
import type { LimitLayer } from './quota.js';

export const LIMIT_SCOPES = ['global', 'plan', 'account', 'website', 'reseller'] as const satisfies readonly LimitScope[];

/** The fields that change a value of the row, by the name `wpp limits` gives their option; the rest say which row. */
export const LIMIT_VALUE_FIELDS = [
  'period',
  'anchor-day',
  'website-hits',
  'account-hits',
  'domain-limit',
  'warning-percent',
  'exempt',
  // A reseller's pool: hits all its customers' websites may have together (stored as the row's account hits).
  'pool-hits',
] as const;
export type LimitValueField = (typeof LIMIT_VALUE_FIELDS)[number];
export type LimitsField = 'scope' | 'subject' | 'allow-unknown' | LimitValueField;

/** A website row is read for its own hit limit, warning threshold and exemption only (core/limits.ts). */
export const ACCOUNT_WIDE_FIELDS = ['period', 'anchor-day', 'account-hits', 'domain-limit'] as const satisfies readonly LimitValueField[];

/** A reseller row sets its pool, the pool's period and its warning threshold: nothing of an account's or a website's own. */
const RESELLER_POOL_FIELDS = ['period', 'anchor-day', 'pool-hits', 'warning-percent'] as const satisfies readonly LimitValueField[];

/** What was typed or submitted; undefined: not given (a value field not given keeps its value). */
export interface LimitsInput extends Partial<Record<LimitValueField, string>> {
  scope?: string | undefined;
  subject?: string | undefined;
  allowUnknown?: boolean | undefined;
}

export interface LimitsProblem {
  /** The field to show it next to; null: the change as a whole (nothing to change). */
  field: LimitsField | null;
  /**
   * invalid: the value cannot be read (message from the field's schema); required: missing;
   * not-applicable: given, but meaningless for the scope; unknown-subject: valid, but the
   * plugin has no such subject (allowUnknown accepts it); nothing-to-change: no value given.
   */
  reason: 'invalid' | 'required' | 'not-applicable' | 'unknown-subject' | 'nothing-to-change';
  /** Without the field's name, e.g. `"" is not a whole number: ...`. */
  message: string;
}

/** One change of the limits table: which row, and the values given (null clears one). */
export interface LimitsChange {
  scope: LimitScope;
  /** Normalized; '' for global. */
  subject: string;
  changes: LimitLayer;
}

export type LimitsChangeResult = { ok: true; change: LimitsChange } | { ok: false; problems: LimitsProblem[] };

export type IsKnown = (scope: Exclude<LimitScope, 'global'>, subject: string) => boolean;

/**
 * Plain decimal digits in [min, max] (leading zeros are harmless), or `none` to clear the value
 * so it is inherited again. Not z.coerce.number(): Number('') and Number(' ') are 0, which
 * paused every website, and Number('0x10') is 16, Number('1e3') 1000.
 */
const wholeNumber = (t: Translate, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.string().transform((value, ctx) => {
    if (value === 'none') return null;
    const range = max === Number.MAX_SAFE_INTEGER ? t('limitsChange.rangeFrom', { min }) : t('limitsChange.rangeBetween', { min, max });
    const number = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
    if (Number.isNaN(number))
      ctx.addIssue({ code: 'custom', message: t('limitsChange.notWholeNumber', { value: JSON.stringify(value), range }) });
    else if (number < min || number > max) ctx.addIssue({ code: 'custom', message: t('limitsChange.outOfRange', { value, range }) });
    return number;
  });
const word = <const T extends readonly [string, ...string[]]>(t: Translate, values: T) =>
  z.enum(values, {
    // The choices as the reader's form names them (a page's select; the CLI's words are the values themselves).
    error: (issue) =>
      t('limitsChange.notOneOf', {
        value: JSON.stringify(issue.input),
        values: values.map((value) => t(`limitsChange.values.${value}`, { defaultValue: value })).join(', '),
      }),
  });

/** Each value's schema, its problems in the reader's language (`t`: the page's, or English for the CLI). */
const valueSchemas = (t: Translate) =>
  ({
    period: word(t, ['monthly', 'daily', 'none']).transform((value) => (value === 'none' ? null : value)),
    'anchor-day': wholeNumber(t, 1, 28),
    'website-hits': wholeNumber(t, 0),
    'account-hits': wholeNumber(t, 0),
    'domain-limit': wholeNumber(t, 0),
    'warning-percent': wholeNumber(t, 1, 100),
    exempt: word(t, ['true', 'false', 'none']).transform((value) => (value === 'none' ? null : value === 'true')),
    'pool-hits': wholeNumber(t, 0),
  }) satisfies Record<LimitValueField, z.ZodType>;
const layerKey = {
  period: 'period',
  'anchor-day': 'anchorDay',
  'website-hits': 'websiteHits',
  'account-hits': 'accountHits',
  'domain-limit': 'domainLimit',
  'warning-percent': 'warningPercent',
  exempt: 'exempt',
  // The reseller row's account hits are its pool: the same meaning (the subject's websites together), one level up.
  'pool-hits': 'accountHits',
} as const satisfies Record<LimitValueField, keyof LimitLayer>;

const inputSchema = (t: Translate) => z.object({ scope: word(t, LIMIT_SCOPES), ...valueSchemas(t) }).partial();

/** Subjects as enforcement looks them up: domains like panel events (lower case, punycode), accounts like panel events, plans trimmed. */
const subjectSchemas = (t: Translate) => ({
  website: z.string().transform((value, ctx) => {
    const domain = normalizeDomain(value);
    if (domain === null) ctx.addIssue({ code: 'custom', message: t('limitsChange.notDomain', { value: JSON.stringify(value) }) });
    return domain ?? '';
  }),
  account: accountNameSchema,
  plan: z.string().trim().min(1, t('limitsChange.planRequired')).max(100, t('limitsChange.planTooLong')),
  // As migration 018 keeps a reseller's name, trimmed as panels send it.
  reseller: z.string().trim().min(1, t('resellerLimits.resellerRequired')).max(255, t('resellerLimits.resellerTooLong')),
});

/** Where a scope's subject messages are: the reseller scope's in its own namespace. */
const subjectKey = (scope: Exclude<LimitScope, 'global'>, key: 'subjectRequired' | 'unknownSubject') =>
  scope === 'reseller' ? `resellerLimits.${key}` : `limitsChange.${key}.${scope}`;

/** The subject as its limits row is keyed, or the reasons it cannot be one. */
export function normalizeLimitSubject(
  scope: Exclude<LimitScope, 'global'>,
  subject: string,
  t: Translate,
): { ok: true; subject: string } | { ok: false; messages: string[] } {
  const result = subjectSchemas(t)[scope].safeParse(subject);
  if (result.success) return { ok: true, subject: result.data };
  const message = (issue: z.core.$ZodIssue) => (scope === 'account' ? accountNameMessage(issue, t) : issue.message);
  return { ok: false, messages: result.error.issues.map(message) };
}

/** The subject's problems for a non-global scope; pushes them and returns the normalized subject. */
function checkSubject(
  scope: Exclude<LimitScope, 'global'>,
  input: LimitsInput,
  isKnown: IsKnown,
  problems: LimitsProblem[],
  t: Translate,
): string {
  if (input.subject === undefined) {
    problems.push({ field: 'subject', reason: 'required', message: t(subjectKey(scope, 'subjectRequired')) });
    return '';
  }
  const normalized = normalizeLimitSubject(scope, input.subject, t);
  if (!normalized.ok) {
    problems.push(...normalized.messages.map((message) => ({ field: 'subject' as const, reason: 'invalid' as const, message })));
    return '';
  }
  if (!input.allowUnknown && !isKnown(scope, normalized.subject)) {
    const spelled = normalized.subject === input.subject ? `"${input.subject}"` : `"${input.subject}" (${normalized.subject})`;
    problems.push({
      field: 'subject',
      reason: 'unknown-subject',
      message: t(subjectKey(scope, 'unknownSubject'), { subject: spelled }),
    });
  }
  return normalized.subject;
}

/** The values given that a reseller row has no use for, or a pool given to any other row. */
const notForScope = (scope: LimitScope, given: LimitValueField[]): LimitValueField[] =>
  scope === 'reseller'
    ? given.filter((name) => !(RESELLER_POOL_FIELDS as readonly string[]).includes(name))
    : given.filter((name) => name === 'pool-hits');

/** The problems of the row (scope, subject, allowUnknown) and of values that do not apply to it; returns the normalized subject. */
function checkRow(
  scope: LimitScope,
  input: LimitsInput,
  given: LimitValueField[],
  isKnown: IsKnown,
  problems: LimitsProblem[],
  t: Translate,
): string {
  const wrongValues = notForScope(scope, given).map((field) => ({
    field,
    reason: 'not-applicable' as const,
    message: scope === 'reseller' ? t('resellerLimits.notForPool') : t('resellerLimits.poolOnly'),
  }));
  if (scope === 'global') {
    if (input.subject !== undefined)
      problems.push({ field: 'subject', reason: 'not-applicable', message: t('limitsChange.globalSubject') });
    if (input.allowUnknown)
      problems.push({ field: 'allow-unknown', reason: 'not-applicable', message: t('limitsChange.globalAllowUnknown') });
    problems.push(...wrongValues);
    return '';
  }
  const subject = checkSubject(scope, input, isKnown, problems, t);
  problems.push(...wrongValues);
  if (scope === 'website') {
    for (const field of given.filter((name) => (ACCOUNT_WIDE_FIELDS as readonly string[]).includes(name))) {
      problems.push({
        field,
        reason: 'not-applicable',
        message: t('limitsChange.accountWide'),
      });
    }
  }
  return subject;
}

/**
 * Reads one change of the limits table, or null when none is asked for (no scope, subject,
 * allowUnknown or value: the CLI then shows the table). `isKnown` is asked about a valid
 * subject unless `allowUnknown`. Problems come in a stable order: unreadable values, then
 * the scope, then the subject and what does not apply. `t` words the problems in the reader's
 * language (the page's; English for the CLI).
 */
export function parseLimitsChange(input: LimitsInput, isKnown: IsKnown, t: Translate): LimitsChangeResult | null {
  const fields = { scope: input.scope, ...Object.fromEntries(LIMIT_VALUE_FIELDS.map((name) => [name, input[name]])) };
  const parsed = inputSchema(t).safeParse(fields);
  const problems: LimitsProblem[] = parsed.success
    ? []
    : parsed.error.issues.map((issue) => ({ field: issue.path[0] as LimitsField, reason: 'invalid', message: issue.message }));
  const given = LIMIT_VALUE_FIELDS.filter((name) => input[name] !== undefined);
  const scope = LIMIT_SCOPES.find((s) => s === input.scope);

  if (input.scope === undefined) {
    if (given.length === 0 && input.subject === undefined && !input.allowUnknown) return null;
    problems.push({ field: 'scope', reason: 'required', message: t('limitsChange.scopeRequired') });
  } else if (given.length === 0) {
    problems.push({ field: null, reason: 'nothing-to-change', message: t('limitsChange.nothingToChange') });
  }
  const subject = scope === undefined ? '' : checkRow(scope, input, given, isKnown, problems, t);
  if (problems.length > 0 || !parsed.success || scope === undefined) return { ok: false, problems };
  const changes: LimitLayer = Object.fromEntries(given.map((name) => [layerKey[name], parsed.data[name]]));
  return { ok: true, change: { scope, subject, changes } };
}

/** What an applied change did to its row: null before when the row did not exist; `recorded` false when nothing changed. */
export interface AppliedLimitsChange {
  before: LimitLayer | null;
  after: LimitLayer;
  recorded: boolean;
}

/** The audit name of a limits row: `limits:<scope>:<subject>` ('' subject for global). */
export const limitsWhat = (scope: LimitScope, subject: string): string => `limits:${scope}:${subject}`;

/**
 * Stores a change: the values given replace the row's, the others stay. Read and written
 * under the write lock, so two admins changing different values of one row both count, with
 * its audit row (who: `actor`) in the same transaction; no audit row when no value changed.
 * `stats` and `audit` must be repositories of one database.
 */
export function applyLimitsChange(
  deps: { stats: StatisticsRepo; audit: SettingsRepo },
  change: LimitsChange,
  actor: string,
): AppliedLimitsChange {
  const { stats, audit } = deps;
  const who = checkedActor(actor);
  return audit.writeTransaction(() => {
    const before = stats.limitLayer(change.scope, change.subject);
    stats.setLimits(change.scope, change.subject, { ...before, ...change.changes });
    // Read back: the row as stored (every key present), so before and after compare value by value.
    const after = stats.limitLayer(change.scope, change.subject) ?? {};
    const recorded = !isDeepStrictEqual(before, after);
    if (recorded) audit.recordChange(who, limitsWhat(change.scope, change.subject), before, after);
    return { before, after, recorded };
  });
}
