/**
 * Every page in its user's language: `t`, `locale` and a `format` for that language on
 * res.locals. Made once at start for each supported language (Intl's formatters and i18next's
 * fixed translators are costly to build, a lookup is not); a request only picks one.
 *
 * The language: a signed-in page's comes from its session (the panel's tag in the launch
 * token, core/locale.ts); a page without a session (a refused sign-in link, the signed-out
 * page) follows the browser's Accept-Language, the best guess there is. Unsupported: English.
 */
import type { NextFunction, Request, Response } from 'express';
import { createFormat, type Format } from '../../core/format.js';
import { createTranslations, loadCatalogs, type Catalogs, type TranslationOptions, type Translate } from '../../core/i18n.js';
import { DEFAULT_LOCALE, SUPPORTED_LOCALES, type SupportedLocale } from '../../core/locale.js';
import { paths } from '../../paths.js';

export interface PageLanguage {
  locale: SupportedLocale;
  t: Translate;
  format: Format;
}

export type PageLanguages = Record<SupportedLocale, PageLanguage>;

export interface PageLanguageOptions extends TranslationOptions {
  /** Default: locales/ as shipped. */
  catalogs?: Catalogs;
  /** The panel's time zone for every date and time (WPP_TIME_ZONE); undefined: UTC, said. */
  timeZone?: string | undefined;
}

/** Each supported language's translator and formatter (in the panel's time zone). */
export function createPageLanguages(options: PageLanguageOptions = {}): PageLanguages {
  const { catalogs = loadCatalogs(paths.locales), timeZone, ...translation } = options;
  const translations = createTranslations(catalogs, translation);
  const entries = SUPPORTED_LOCALES.map((locale) => [
    locale,
    { locale, t: translations[locale], format: createFormat({ locale, timeZone }) },
  ]);
  return Object.fromEntries(entries) as PageLanguages;
}

/** Puts `language` on the page about to be rendered. */
export function usePageLanguage(res: Response, language: PageLanguage): void {
  res.locals.locale = language.locale;
  res.locals.t = language.t;
  res.locals.format = language.format;
}

/** The language of a page without a session: the browser's first supported choice (de-AT counts as de), else English. */
export function browserLanguage(languages: PageLanguages) {
  return (req: Request, res: Response, next: NextFunction) => {
    const accepted = req.headers['accept-language'] ? req.acceptsLanguages(...SUPPORTED_LOCALES) : false;
    usePageLanguage(res, languages[accepted === false ? DEFAULT_LOCALE : (accepted as SupportedLocale)]);
    next();
  };
}
