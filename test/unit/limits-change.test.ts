/**
 * The limits rules as the admin Settings page reads them: every problem keyed by the field it
 * is shown next to, its message without the CLI's `--option: ` (the CLI's wording is
 * test/unit/limits-args.test.ts's).
 */
import { describe, expect, it } from 'vitest';
import { englishTranslate } from '../../src/cli/english.js';
import { parseLimitsChange, type IsKnown, type LimitsInput, type LimitsProblem } from '../../src/core/limits-change.js';

const english = englishTranslate();

const known: IsKnown = () => true;
const problemsOf = (input: LimitsInput, isKnown: IsKnown = known): LimitsProblem[] => {
  const result = parseLimitsChange(input, isKnown, english);
  if (result === null || result.ok) throw new Error(`expected problems, got ${JSON.stringify(result)}`);
  return result.problems;
};

describe('parseLimitsChange: problems by field', () => {
  it('names each unreadable value by its field, in field order, the message without the option name', () => {
    const problems = problemsOf({
      scope: 'global',
      'website-hits': '',
      'anchor-day': '29',
      'warning-percent': '0x10',
      period: 'weekly',
      exempt: 'yes',
      'account-hits': '12',
    });
    expect(problems.map((p) => [p.field, p.reason])).toEqual([
      ['period', 'invalid'],
      ['anchor-day', 'invalid'],
      ['website-hits', 'invalid'],
      ['warning-percent', 'invalid'],
      ['exempt', 'invalid'],
    ]);
    expect(problems[2]?.message).toBe('"" is not a whole number: give plain decimal digits (0 or more), or none to clear');
    expect(problems[1]?.message).toBe('29 is out of range: give 1 to 28, or none to clear');
    expect(problems[0]?.message).toBe('"weekly" is not one of monthly, daily, none');
    for (const problem of problems) expect(problem.message).not.toMatch(/^-/);
  });

  it('keys the row problems to scope, subject and allow-unknown', () => {
    expect(problemsOf({ 'website-hits': '5' })).toEqual([{ field: 'scope', reason: 'required', message: expect.any(String) }]);
    expect(problemsOf({ scope: 'user', 'website-hits': '5' })).toEqual([
      { field: 'scope', reason: 'invalid', message: '"user" is not one of global, plan, account, website, reseller' },
    ]);
    expect(
      problemsOf({ scope: 'global', subject: 'alice', allowUnknown: true, 'website-hits': '5' }).map((p) => [p.field, p.reason]),
    ).toEqual([
      ['subject', 'not-applicable'],
      ['allow-unknown', 'not-applicable'],
    ]);
    expect(problemsOf({ scope: 'account', 'website-hits': '5' })).toEqual([
      { field: 'subject', reason: 'required', message: 'a account limit needs the account it applies to' },
    ]);
    expect(problemsOf({ scope: 'account', subject: 'a b', allowUnknown: true, 'website-hits': '5' })).toEqual([
      { field: 'subject', reason: 'invalid', message: 'account may only contain letters, digits and . _ @ + -' },
    ]);
  });

  it('says which subject is unknown, as typed and as normalized, and asks about the normalized one', () => {
    const asked: string[] = [];
    const unknown: IsKnown = (scope, subject) => {
      asked.push(`${scope}:${subject}`);
      return false;
    };
    const [problem, ...rest] = problemsOf({ scope: 'website', subject: 'Bücher.Example', exempt: 'true' }, unknown);
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({ field: 'subject', reason: 'unknown-subject' });
    expect(problem?.message).toContain('"Bücher.Example" (xn--bcher-kva.example)');
    expect(asked).toEqual(['website:xn--bcher-kva.example']);
    expect(
      parseLimitsChange({ scope: 'website', subject: 'Bücher.Example', exempt: 'true', allowUnknown: true }, unknown, english),
    ).toMatchObject({
      ok: true,
    });
  });

  it("puts an account-wide value given for a website next to that value's field", () => {
    const problems = problemsOf({ scope: 'website', subject: 'one.example', period: 'daily', 'domain-limit': '3', 'website-hits': '5' });
    expect(problems.map((p) => [p.field, p.reason])).toEqual([
      ['period', 'not-applicable'],
      ['domain-limit', 'not-applicable'],
    ]);
  });

  it('tells nothing asked (null) from nothing to change (a problem of the whole form)', () => {
    expect(parseLimitsChange({}, known, english)).toBeNull();
    expect(parseLimitsChange({ allowUnknown: false }, known, english)).toBeNull();
    expect(problemsOf({ scope: 'global' })).toEqual([{ field: null, reason: 'nothing-to-change', message: expect.any(String) }]);
  });

  it('returns the change with its subject normalized and only the values given', () => {
    expect(parseLimitsChange({ scope: 'account', subject: ' ALICE ', 'account-hits': '0900', exempt: 'none' }, known, english)).toEqual({
      ok: true,
      change: { scope: 'account', subject: 'alice', changes: { accountHits: 900, exempt: null } },
    });
    expect(parseLimitsChange({ scope: 'global', period: 'none' }, known, english)).toEqual({
      ok: true,
      change: { scope: 'global', subject: '', changes: { period: null } },
    });
  });
});
