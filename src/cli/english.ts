/**
 * The CLI's messages: English, from the same catalogs as the pages (locales/en.json), so a
 * rule shared with a page (core/limits-change.ts, core/plan-change.ts) words its problems the
 * same way in both. Read once, when a command first needs it.
 */
import { createTranslations, loadCatalogs, type Translate } from '../core/i18n.js';
import { paths } from '../paths.js';

let english: Translate | undefined;

/** English messages for a command's output. */
export function englishTranslate(): Translate {
  english ??= createTranslations(loadCatalogs(paths.locales)).en;
  return english;
}
