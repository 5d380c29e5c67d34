/**
 * The plugin's messages in the user's language: one catalog per supported language
 * (locales/<tag>.json, i18next's JSON: nested keys, `{{name}}` placeholders, plural forms as
 * `key_one`/`key_other`, chosen by Intl.PluralRules), and a translate function per language made
 * once. Pages, and the e-mails to come, call `t(key, values)`; a key the user's language lacks
 * falls back to English, and one no catalog has is reported to `onMissingKey` (the tests make
 * that a failure).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import i18next from 'i18next';
import { z } from 'zod';
import { DEFAULT_LOCALE, SUPPORTED_LOCALES, type SupportedLocale } from './locale.js';

export interface Catalog {
  [key: string]: string | Catalog;
}
export type Catalogs = Record<SupportedLocale, Catalog>;

/** A message of the user's language: `key` is a dotted path into the catalog, `values` fill its placeholders (`count` picks the plural form). */
export type Translate = (key: string, values?: Record<string, unknown>) => string;

const catalogSchema: z.ZodType<Catalog> = z.lazy(() => z.record(z.string(), z.union([z.string(), catalogSchema])));

/** Reads and checks every supported language's catalog from `dir` (locales/): a broken catalog stops the start, never a page. */
export function loadCatalogs(dir: string): Catalogs {
  const entries = SUPPORTED_LOCALES.map((locale) => {
    const file = join(dir, `${locale}.json`);
    const parsed = catalogSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success) throw new Error(`${file} is not a message catalog: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return [locale, parsed.data] as const;
  });
  return Object.fromEntries(entries) as Catalogs;
}

export interface TranslationOptions {
  /** Told of a key the catalogs lack (with the language asked for). */
  onMissingKey?: (locale: string, key: string) => void;
  /**
   * false: a key missing from a language is not looked up in English but reported (the
   * check that every page is translated). Default true.
   */
  fallbackToEnglish?: boolean;
}

/** What i18next answers for a key no catalog has, so that such an answer is never cached. */
const MISSING = '\u0000missing';

/** `{{name}}` placeholders filled from `values`, as i18next would (a value not given is empty). */
const interpolate = (text: string, values: Record<string, unknown>) =>
  text.includes('{{') ? text.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_whole, name: string) => String(values[name] ?? '')) : text;

/**
 * One translate function per supported language, made once. i18next resolves each key once per
 * language and plural category (the language, the English fallback, the plural form by
 * Intl.PluralRules) and the template is kept; a call then fills in the placeholders only, since
 * a page such as the accounts list asks hundreds of messages and i18next's full path costs
 * microseconds each. Values are not HTML-escaped here: EJS escapes what `<%= %>` writes.
 */
export function createTranslations(catalogs: Catalogs, options: TranslationOptions = {}): Record<SupportedLocale, Translate> {
  const { onMissingKey, fallbackToEnglish = true } = options;
  const instance = i18next.createInstance();
  void instance.init({
    initAsync: false,
    resources: Object.fromEntries(SUPPORTED_LOCALES.map((locale) => [locale, { translation: catalogs[locale] }])),
    supportedLngs: [...SUPPORTED_LOCALES],
    lng: DEFAULT_LOCALE,
    fallbackLng: fallbackToEnglish ? DEFAULT_LOCALE : false,
    interpolation: { escapeValue: false },
    returnNull: false,
    returnEmptyString: false,
    saveMissing: onMissingKey !== undefined,
    saveMissingTo: 'current',
    ...(onMissingKey
      ? { missingKeyHandler: (lngs: readonly string[], _ns: string, key: string) => onMissingKey(lngs[0] ?? '?', key) }
      : {}),
  });
  const translateIn = (locale: SupportedLocale): Translate => {
    const fixed = instance.getFixedT(locale);
    const plurals = new Intl.PluralRules(locale);
    const templates = new Map<string, string>();
    return (key, values) => {
      const count = typeof values?.count === 'number' ? values.count : undefined;
      // `zero` apart: i18next may use a `key_zero` form for 0 whatever the language's plural rules say.
      const cacheKey = count === undefined ? key : `${key}\u0000${count === 0 ? 'zero' : plurals.select(count)}`;
      let template = templates.get(cacheKey);
      if (template === undefined) {
        const found = fixed(key, { ...(count === undefined ? {} : { count }), skipInterpolation: true, defaultValue: MISSING });
        if (found === MISSING) return interpolate(typeof values?.defaultValue === 'string' ? values.defaultValue : key, values ?? {});
        template = found;
        templates.set(cacheKey, template);
      }
      return values ? interpolate(template, values) : template;
    };
  };
  return Object.fromEntries(SUPPORTED_LOCALES.map((locale) => [locale, translateIn(locale)])) as Record<SupportedLocale, Translate>;
}
