/**
 * The settings part of the customer's domain page: the words every field is shown with
 * (provider/setting-words.ts, the rules editor's too), the last known settings with when they
 * were read (core/settings-snapshot.ts), and the error summary of a form sent back.
 */
import type { Translate } from '../../core/i18n.js';
import type { AppErrorCode } from '../../errors.js';
import type { KnownSettings } from '../../core/settings-snapshot.js';
import { formOf, settingsFieldLabel, type FieldProblems, type SettingsForm, type SettingsView } from '../../core/website-settings.js';
import { CERTS_ISSUERS, LOADBALANCER_FLAGS, RULE_CATEGORIES, RULESETS } from '../../provider/index.js';
import { settingWordsIn } from '../../core/setting-words-i18n.js';
import { POLICY_ORDER } from '../../provider/setting-words.js';
import { errorSummary, type ErrorSummary } from './error-summary.js';

/**
 * The settings form's vocabulary: the API's values and the words they are shown with, in the
 * page's language (the catalogs' `settingWords`, whose English is provider/setting-words.ts).
 */
export function settingsVocabulary(t: Translate) {
  return {
    categories: RULE_CATEGORIES,
    policies: POLICY_ORDER,
    rulesets: RULESETS,
    flags: LOADBALANCER_FLAGS,
    issuers: CERTS_ISSUERS,
    words: settingWordsIn(t),
  };
}

export interface SettingsLocals {
  view: SettingsView | null;
  form: SettingsForm | null;
  problems: FieldProblems;
  /** Why no settings can be shown (views/panel/partials/settings-status.ejs). */
  settingsNote?: { reason: 'unreachable'; failure: string; code: AppErrorCode } | { reason: 'pending' } | { reason: 'not_provisioned' };
  /** When the shown settings were read, and a failed read since. */
  settingsAsOf?: { readAt: number; failedAt: number | null };
  errorSummary?: ErrorSummary;
}

/** The page's settings locals from what is known. */
export function knownSettingsLocals(known: KnownSettings): SettingsLocals {
  if (known.view === null) return { view: null, form: null, problems: {}, settingsNote: known };
  return { view: known.view, form: formOf(known.view), problems: {}, settingsAsOf: { readAt: known.readAt, failedAt: known.failedAt } };
}

/** The fields in the order the form shows them, so the summary reads in the same order. */
const FIELD_ORDER = [
  'form',
  ...RULE_CATEGORIES.map((c) => `rule_${c}`),
  ...RULESETS.map((r) => `ruleset_${r}`),
  ...LOADBALANCER_FLAGS.map((f) => `lb_${f}`),
  'subdomains',
  'ipv4',
  'ipv6',
  'certs_issuer',
  'certificate',
  'private_key',
];

/** The id each field's link goes to: the field itself; the issuer's first radio button. */
const fieldId = (field: string) => (field === 'form' ? 'form-problem' : field === 'certs_issuer' ? 'issuer-acme' : field);

export function settingsErrorSummary(problems: FieldProblems, t: Translate): ErrorSummary {
  const rank = (field: string) => (FIELD_ORDER.includes(field) ? FIELD_ORDER.indexOf(field) : FIELD_ORDER.length);
  const fields = Object.keys(problems).sort((a, b) => rank(a) - rank(b));
  return errorSummary(
    fields.map((field) => ({ id: fieldId(field), label: settingsFieldLabel(field, t), message: problems[field] as string })),
    t('settingsForm.problems.nothingSaved'),
  );
}
