/**
 * The languages of the pages and how a panel's language tag becomes one of them. Panels name
 * languages their own way (cPanel `de` or `es_es`, Plesk `de-DE`, Webmin `de.UTF-8`); the
 * launch token carries the tag as the panel gave it, normalised, and every page request
 * resolves it to a language the plugin has a catalog for: `de-AT` is German, a language the
 * plugin lacks (or none) is English.
 */
import { z } from 'zod';

/** The languages the plugin has catalogs for (locales/<tag>.json); the first is the fallback. */
export const SUPPORTED_LOCALES = ['en', 'de', 'es'] as const;
export type SupportedLocale = (typeof SUPPORTED_LOCALES)[number];
export const DEFAULT_LOCALE: SupportedLocale = 'en';

/** A BCP 47-like tag: a 2 or 3 letter language, then subtags of 1 to 8 letters or digits (de, de-AT, zh-Hant-TW). */
const TAG = /^[a-z]{2,3}(-[a-z0-9]{1,8})*$/i;
export const LOCALE_TAG_MAX_LENGTH = 35;

/**
 * A panel's language tag in BCP 47 form, or undefined when it is not one: `de_AT.UTF-8` and
 * `de_AT@euro` (POSIX locales, as Webmin and DirectAdmin may give them) become `de-AT`.
 */
export function normalizeLocaleTag(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const tag = value
    .trim()
    .replace(/[.@].*$/, '')
    .replaceAll('_', '-');
  return tag.length <= LOCALE_TAG_MAX_LENGTH && TAG.test(tag) ? tag : undefined;
}

/**
 * The launch token's optional `locale` claim, parsed at the edge: a tag of bounded length, or
 * nothing. A value that is not a tag is dropped, never a reason to refuse the sign-in: the
 * user then reads English.
 */
export const localeClaimSchema = z
  .unknown()
  .transform((value) => normalizeLocaleTag(value))
  .optional();

/** The supported language a tag resolves to: its language subtag if the plugin has it (de-AT → de), else English. */
export function resolveLocale(tag: string | null | undefined): SupportedLocale {
  const language = normalizeLocaleTag(tag)?.split('-')[0]?.toLowerCase();
  return SUPPORTED_LOCALES.find((locale) => locale === language) ?? DEFAULT_LOCALE;
}
