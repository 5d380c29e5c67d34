/**
 * The check that a page is in its user's language (issue 21): every page converted to the
 * message catalogs (locales/) is opened in each supported language, and its visible text must
 * show nothing untranslated:
 * - a catalog key shown as such (no catalog has it: i18next answers with the key);
 * - in German or Spanish, a message of the English catalog whose translation differs (that
 *   language's catalog lacks it, and the English fallback shows);
 * - in German or Spanish, English words written into a template or a route instead of the
 *   catalog (" the ", " your ", ...);
 * both of the last two outside what the test names as data (a domain, an admin's name, a
 * provider's reason quoted as the provider gave it).
 * Each area's test lists its pages (test/integration/i18n-*.test.ts) and calls expectTranslated.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { Catalog } from '../../src/core/i18n.js';
import { SUPPORTED_LOCALES } from '../../src/core/locale.js';
import { createPageClient, textOf, type PageAnswer } from './page-client.js';
import { admin, customer, launchUrl, reseller, type LaunchTarget } from './pages.js';

export type Signed = 'admin' | 'reseller' | 'customer' | 'nobody';

/** One page to check: who opens it (a customer: `account`, default sam; a reseller: `account` is their name, default res1), where, and the status it answers with. */
export interface PageVisit {
  name: string;
  as: Signed;
  path: string;
  status: number;
  account?: string;
  /** A form posted after opening `path` (its CSRF token read from that page), with its fields. */
  post?: string;
  fields?: Record<string, string>;
}

const catalogs = Object.fromEntries(
  SUPPORTED_LOCALES.map((locale) => [locale, JSON.parse(readFileSync(`locales/${locale}.json`, 'utf8')) as Catalog]),
) as Record<string, Catalog>;

/** Every message of a catalog by its dotted key. */
export function messages(catalog: Catalog, prefix = ''): Map<string, string> {
  const found = new Map<string, string>();
  for (const [key, value] of Object.entries(catalog)) {
    if (typeof value === 'string') found.set(prefix + key, value);
    else for (const [k, v] of messages(value, `${prefix}${key}.`)) found.set(k, v);
  }
  return found;
}

/**
 * The English messages a page in `locale` must not show (those the locale writes otherwise), each
 * as a pattern of its whole text with any value where its placeholders are.
 */
const englishByLocale = new Map<string, { text: string; pattern: RegExp }[]>();
function englishMessages(locale: string): { text: string; pattern: RegExp }[] {
  // Made once per language: every page of every area's test is checked against the same list.
  const known = englishByLocale.get(locale);
  if (known) return known;
  const english = messages(catalogs.en as Catalog);
  const translated = messages(catalogs[locale] as Catalog);
  // The words the language itself writes: a one-word English message (placeholders aside) that is also one of
  // them ("Pause", "Pause {{domain}}": German too) cannot be told from that language's own text; such a message is
  // left to the English-words check and the key check.
  const ownWords = new Set([...translated.values()].flatMap((text) => text.toLowerCase().match(/\p{L}+/gu) ?? []));
  const list = [...english]
    .filter(([key, text]) => translated.get(key) !== text)
    .filter(([, text]) => {
      const literal = text.replace(/\{\{[^}]+\}\}/g, ' ').trim();
      return !/^\p{L}+$/u.test(literal) || !ownWords.has(literal.toLowerCase());
    })
    .flatMap(([, text]) => {
      const parts = text.split(/\{\{[^}]+\}\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      // A placeholder at either end is left out (any value is there): a pattern that starts with
      // `.+?` is tried from every position of the page, seconds a page once messages start so.
      // Prose, not part of an identifier: website.protect, no-such-page and limits:account:x are no "website", "no" or "account".
      const start = parts[0] === '' ? '' : '(?<![\\w.:/-])';
      const end = parts[parts.length - 1] === '' ? '' : '(?![\\w:/-]|\\.\\w)';
      const body = parts.slice(parts[0] === '' ? 1 : 0, parts.length > 1 && parts[parts.length - 1] === '' ? -1 : undefined).join('.+?');
      // A message of placeholders only (`{{a}} {{b}}`) says nothing to look for.
      return /\p{L}/u.test(body) ? [{ text, pattern: new RegExp(`${start}${body}${end}`) }] : [];
    });
  englishByLocale.set(locale, list);
  return list;
}

const KEY_SHOWN = new RegExp(`\\b(${Object.keys(catalogs.en as Catalog).join('|')})\\.[A-Za-z_]+`);

/**
 * Words that are English and neither German nor Spanish: one of them in a German or Spanish page
 * is a message that never went through the catalogs.
 */
const ENGLISH_WORDS =
  /\b(the|your|and|this|with|you|are|is|of|to|for|not|been|have|has|it|from|when|which|what|there|here|yet|no longer|now)\b/i;

/** What in a page's text is not in `locale`: catalog keys shown as such, English messages, English words outside `data`. */
export function untranslated(text: string, locale: string, data: readonly string[] = []): string[] {
  // Data is left out of every check: a plan named "default", the keyword "none" that clears a limit, an admin named
  // alice-admin, a difference kind such as domain.missing. The longest first, so that removing prot.example does not
  // leave the "no" of noprot.example behind.
  let rest = text;
  for (const value of [...data].sort((a, b) => b.length - a.length)) rest = rest.split(value).join(' ');
  const keys = KEY_SHOWN.exec(rest);
  if (locale === 'en') return keys ? [`key ${keys[0]}`] : [];
  const english = englishMessages(locale).filter(({ pattern }) => pattern.test(rest));
  const words = [...rest.matchAll(new RegExp(ENGLISH_WORDS, 'gi'))].map((m) => {
    const at = m.index ?? 0;
    return `English words "…${rest.slice(Math.max(0, at - 40), at + 40).trim()}…"`;
  });
  return [...(keys ? [`key ${keys[0]}`] : []), ...new Set(english.map((message) => `English "${message.text}"`)), ...new Set(words)];
}

/** Opens a page as `visit.as` in `locale`: a session launched with the locale, or a browser asking for it. */
export async function openInLocale(target: LaunchTarget, visit: PageVisit, locale: string): Promise<PageAnswer> {
  if (visit.as === 'nobody') {
    const response = await fetch(`${target.url}${visit.path}`, { headers: { 'accept-language': locale }, redirect: 'manual' });
    return { status: response.status, headers: response.headers, body: await response.text() };
  }
  const client = createPageClient(target.url);
  const request =
    visit.as === 'admin' ? admin() : visit.as === 'reseller' ? reseller(visit.account ?? 'res1') : customer(visit.account ?? 'sam');
  expect((await client.get(launchUrl(target, { ...request, locale }))).status).toBe(303);
  const page = await client.get(visit.path);
  return visit.post ? client.post(visit.post, visit.fields) : page;
}

/**
 * Opens every page of `visits` in every supported language and expects each in its language:
 * the status, `<html lang>`, and nothing untranslated (`data`: text that is data, not a message).
 */
export async function expectTranslated(target: LaunchTarget, visits: readonly PageVisit[], data: readonly string[] = []): Promise<void> {
  const problems: string[] = [];
  for (const locale of SUPPORTED_LOCALES) {
    for (const visit of visits) {
      const answer = await openInLocale(target, visit, locale);
      const where = `${locale} ${visit.name}`;
      expect(answer.status, where).toBe(visit.status);
      expect(answer.body, where).toContain(`<html lang="${locale}">`);
      for (const found of untranslated(textOf(answer.body), locale, data)) problems.push(`${where}: ${found}`);
    }
  }
  expect(problems).toEqual([]);
}
