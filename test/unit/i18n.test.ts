import { describe, expect, it } from 'vitest';
import { createTranslations, loadCatalogs, type Catalog } from '../../src/core/i18n.js';
import { SUPPORTED_LOCALES } from '../../src/core/locale.js';
import { paths } from '../../src/paths.js';

const catalogs = loadCatalogs(paths.locales);

function messages(catalog: Catalog, prefix = ''): Map<string, string> {
  const found = new Map<string, string>();
  for (const [key, value] of Object.entries(catalog)) {
    if (typeof value === 'string') found.set(prefix + key, value);
    else for (const [k, v] of messages(value, `${prefix}${key}.`)) found.set(k, v);
  }
  return found;
}

const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();

describe('the message catalogs', () => {
  it('give every English message in each language, with the same placeholders', () => {
    const english = messages(catalogs.en);
    for (const locale of SUPPORTED_LOCALES) {
      const translated = messages(catalogs[locale]);
      // A plural form a language does not use (German has no `_few`) may be absent; every message is not.
      const base = (key: string) => key.replace(/_(zero|one|two|few|many|other)$/, '');
      expect([...english.keys()].filter((key) => !translated.has(key)).map(base), locale).toEqual([]);
      expect(
        [...translated.keys()].filter((key) => !english.has(key)),
        locale,
      ).toEqual([]);
      for (const [key, text] of english) {
        const theirs = translated.get(key) ?? '';
        expect(theirs.trim(), `${locale} ${key}`).not.toBe('');
        expect(placeholders(theirs), `${locale} ${key}`).toEqual(placeholders(text));
      }
    }
  });

  it('translate with placeholders and plural forms (Intl.PluralRules), falling back to English', () => {
    const t = createTranslations(catalogs);
    expect(t.de('jobs.dead', { count: 1, total: '1' })).toBe('1 gescheiterter Auftrag');
    expect(t.de('jobs.dead', { count: 2, total: '2' })).toBe('2 gescheiterte Aufträge');
    expect(t.es('jobs.retriedMany', { count: 3 })).toBe(
      '3 tareas fallidas vuelven a estar en cola: el proceso de tareas las ejecutará en breve.',
    );
    expect(t.en('error.code', { code: '<NOT_FOUND>' })).toBe('Code: <NOT_FOUND>');

    const sparse = { ...catalogs, de: { layout: { signOut: 'Abmelden' } } };
    expect(createTranslations(sparse).de('layout.skipLink')).toBe('Skip to the content');
  });

  it('answer each call with its own values and plural form, the same key asked again and again', () => {
    const t = createTranslations(catalogs);
    const retried = [1, 2, 1, 21, 0].map((count) => t.de('jobs.retriedMany', { count }));
    expect(retried[0]).toBe(retried[2]);
    expect(retried[0]).toMatch(/^1 gescheiterter Auftrag ist/);
    expect(retried[1]).toMatch(/^2 gescheiterte Aufträge sind/);
    expect(retried[3]).toMatch(/^21 gescheiterte/);
    expect(retried[4]).toMatch(/^0 gescheiterte/);
    expect([7, 8].map((id) => t.es('jobs.retry', { id }))).toEqual(['Reintentar #7', 'Reintentar #8']);
    expect(t.en('runs.reasons.brand_new', { defaultValue: 'brand new' })).toBe('brand new');
    expect(t.en('runs.reasons.brand_new', { defaultValue: 'other words' })).toBe('other words');
  });

  it('report a key no catalog has, and in strict mode one the language lacks', () => {
    const missing: string[] = [];
    const t = createTranslations(catalogs, { onMissingKey: (locale, key) => missing.push(`${locale} ${key}`) });
    expect(t.de('layout.signOut')).toBe('Abmelden');
    expect(t.es('no.such.key')).toBe('no.such.key');
    expect(t.es('no.such.key')).toBe('no.such.key');
    expect(missing).toEqual(['es no.such.key', 'es no.such.key']);

    const strictMissing: string[] = [];
    const sparse = { ...catalogs, de: { layout: { signOut: 'Abmelden' } } };
    const strict = createTranslations(sparse, {
      fallbackToEnglish: false,
      onMissingKey: (locale, key) => strictMissing.push(`${locale} ${key}`),
    });
    strict.de('layout.skipLink');
    expect(strictMissing).toEqual(['de layout.skipLink']);
  });
});
