/**
 * provider/setting-words.ts stays the one English source of the settings' words (the sandbox's
 * editor and the admin's plan descriptions read it); the catalogs' `settingWords` carry them to
 * the plugin's pages in every language. These tests fail when the two drift apart.
 */
import { describe, expect, it } from 'vitest';
import { createTranslations, loadCatalogs } from '../../src/core/i18n.js';
import { settingWordsIn } from '../../src/core/setting-words-i18n.js';
import { paths } from '../../src/paths.js';
import {
  CATEGORY_WORDS,
  FIELD_WORDS,
  FLAG_WORDS,
  GROUP_WORDS,
  ISSUER_WORDS,
  POLICY_WORDS,
  RULESET_WORDS,
} from '../../src/provider/setting-words.js';

const translations = createTranslations(loadCatalogs(paths.locales), { fallbackToEnglish: false });

describe('the settings words in the catalogs', () => {
  it('are in English exactly the words of provider/setting-words.ts', () => {
    expect(settingWordsIn(translations.en)).toEqual({
      categories: CATEGORY_WORDS,
      policies: POLICY_WORDS,
      rulesets: RULESET_WORDS,
      flags: FLAG_WORDS,
      issuers: ISSUER_WORDS,
      fields: FIELD_WORDS,
      groups: GROUP_WORDS,
    });
  });

  it('are in German and Spanish for every setting, each its own words, and rule sets keep their makers’ names', () => {
    const english = settingWordsIn(translations.en);
    for (const locale of ['de', 'es'] as const) {
      const words = settingWordsIn(translations[locale]);
      for (const table of ['categories', 'policies', 'flags', 'issuers', 'fields'] as const) {
        for (const [id, { label, help }] of Object.entries(words[table])) {
          const en = (english[table] as Record<string, { label: string; help: string }>)[id];
          expect(label, `${locale} ${table}.${id}`).not.toMatch(/^settingWords\./);
          expect(help, `${locale} ${table}.${id}`).not.toBe(en?.help);
        }
      }
      expect(words.rulesets.wordpress.label).toBe('WordPress');
      expect(words.rulesets.wordpress.help).toContain('WordPress');
      expect(words.rulesets.wordpress.help).not.toBe(RULESET_WORDS.wordpress.help);
    }
  });
});
