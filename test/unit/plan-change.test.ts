/** The rules of a plan change, shared by `wpp plans set` and the Settings page: each problem keyed by its field. */
import { describe, expect, it } from 'vitest';
import { englishTranslate } from '../../src/cli/english.js';
import { parsePlanChange } from '../../src/core/plan-change.js';

const english = englishTranslate();

describe('parsePlanChange', () => {
  it('reads the settings JSON and the subdomains; a part not given keeps its value', () => {
    expect(parsePlanChange({ name: ' gold ', settings: '{"rules":{"humans":"deny"}}', subdomains: 'www, shop, www' }, english)).toEqual({
      ok: true,
      change: { name: 'gold', settings: { rules: { humans: 'deny' } }, subdomains: ['www', 'shop'] },
    });
    expect(parsePlanChange({ name: 'gold', subdomains: 'none' }, english)).toEqual({ ok: true, change: { name: 'gold', subdomains: [] } });
  });

  it('keys every problem by its field, with the path inside the settings', () => {
    const result = parsePlanChange({ name: '', settings: '{"rules":{"humans":"maybe"}}', subdomains: 'bad_label!' }, english);
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems.map(({ field, path }) => [field, path])).toEqual([
      ['name', []],
      ['settings', ['rules', 'humans']],
      ['subdomains', [0]],
    ]);
    expect(parsePlanChange({ name: 'gold', settings: '{rules:' }, english)).toMatchObject({
      ok: false,
      problems: [{ field: 'settings', path: [], message: expect.stringMatching(/^is not JSON/) }],
    });
  });

  it('refuses a change that changes nothing', () => {
    expect(parsePlanChange({ name: 'gold' }, english)).toEqual({
      ok: false,
      problems: [{ field: null, path: [], message: 'nothing to change: give the settings, the subdomains or the days of monitoring' }],
    });
  });

  it('reads the days of monitoring first: whole days from 0 to 90, each problem next to the field', () => {
    expect(parsePlanChange({ name: 'gold', monitorDays: '14' }, english)).toEqual({ ok: true, change: { name: 'gold', monitorDays: 14 } });
    expect(parsePlanChange({ name: 'gold', monitorDays: '0' }, english)).toEqual({ ok: true, change: { name: 'gold', monitorDays: 0 } });
    for (const [typed, message] of [
      ['91', 'is at most 90 days'],
      ['-1', 'is at least 0 (0: protect at once)'],
      ['1.5', 'is a whole number of days'],
      ['soon', 'is not a number of days'],
    ]) {
      expect(parsePlanChange({ name: 'gold', monitorDays: typed }, english), typed).toEqual({
        ok: false,
        problems: [{ field: 'monitorDays', path: [], message }],
      });
    }
  });
});
