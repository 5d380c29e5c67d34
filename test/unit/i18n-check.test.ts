/**
 * The in-language check of test/helpers/i18n-check.ts itself: an English message shown on its own
 * in a German page is found, the same word inside a name, a path or a log's actor is not, and
 * the test's data is left out of every check.
 */
import { describe, expect, it } from 'vitest';
import { untranslated } from '../helpers/i18n-check.js';

describe('the in-language check', () => {
  it('finds an English message standing as a word of its own, not inside a name, a path or an actor, nor a word German has too', () => {
    expect(untranslated('Aktionen: Resume', 'de')).toEqual(['English "Resume"']);
    expect(untranslated('Angemeldet: alice-resume. Seite /resume/jobs. Durch resume:alice.', 'de')).toEqual([]);
    // A one-word English message that German writes too ("Admin", "Pause") is German there.
    expect(untranslated('Pausiert: 3 durch Admin. Pause bestätigen', 'de')).toEqual([]);
    expect(untranslated('Zustand: Over the limit', 'de')).toEqual([
      'English "Over the limit"',
      'English words "…Zustand: Over the limit…"',
    ]);
  });

  it("leaves the test's data out of both the message and the word checks", () => {
    const text = 'Could not protect: The domain x.example does not exist';
    expect(untranslated(text, 'es').length).toBeGreaterThan(0);
    expect(untranslated(text, 'es', ['Could not protect', 'The domain x.example does not exist'])).toEqual([]);
  });
});
