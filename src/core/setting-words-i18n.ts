/**
 * The words of the provider's settings (provider/setting-words.ts) in a page's language. The
 * catalogs hold them under `settingWords`, keyed by the API's own ids (`settingWords.categories.
 * humans.label`, `settingWords.flags.force_https.help`); English there is exactly the text of
 * setting-words.ts, which stays the one English source (the sandbox's editor, the admin's plan
 * descriptions), and test/unit/setting-words-i18n.test.ts fails when the two drift apart.
 * Rule sets are named as their makers spell them, in every language; only their help is a message.
 */
import {
  CATEGORY_WORDS,
  FIELD_WORDS,
  FLAG_WORDS,
  GROUP_WORDS,
  ISSUER_WORDS,
  POLICY_WORDS,
  RULESET_WORDS,
  type SettingWords,
} from '../provider/setting-words.js';
import type { Translate } from './i18n.js';

/** Each entry of a words table, by `settingWords.<table>.<id>.label` and `.help`. */
function translated<K extends string>(t: Translate, table: string, english: Record<K, SettingWords>): Record<K, SettingWords> {
  return Object.fromEntries(
    (Object.keys(english) as K[]).map((id) => [
      id,
      { label: t(`settingWords.${table}.${id}.label`), help: t(`settingWords.${table}.${id}.help`) },
    ]),
  ) as Record<K, SettingWords>;
}

/** The same shape as setting-words.ts's tables, in `t`'s language. */
export function settingWordsIn(t: Translate) {
  return {
    categories: translated(t, 'categories', CATEGORY_WORDS),
    policies: translated(t, 'policies', POLICY_WORDS),
    rulesets: Object.fromEntries(
      Object.entries(RULESET_WORDS).map(([id, { label }]) => [id, { label, help: t('settingWords.rulesetHelp', { name: label }) }]),
    ) as typeof RULESET_WORDS,
    flags: translated(t, 'flags', FLAG_WORDS),
    issuers: translated(t, 'issuers', ISSUER_WORDS),
    fields: translated(t, 'fields', FIELD_WORDS),
    groups: Object.fromEntries(Object.keys(GROUP_WORDS).map((id) => [id, t(`settingWords.groups.${id}`)])) as Record<
      keyof typeof GROUP_WORDS,
      string
    >,
  };
}

export type SettingWordsIn = ReturnType<typeof settingWordsIn>;
