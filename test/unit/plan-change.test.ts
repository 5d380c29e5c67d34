/** The rules of a plan change, shared by `wpp plans set` and the Settings page: each problem keyed by its field. */
import { describe, expect, it } from 'vitest';
import { parsePlanChange } from '../../src/core/plan-change.js';

describe('parsePlanChange', () => {
  it('reads the settings JSON and the subdomains; a part not given keeps its value', () => {
    expect(parsePlanChange({ name: ' gold ', settings: '{"rules":{"humans":"deny"}}', subdomains: 'www, shop, www' })).toEqual({
      ok: true,
      change: { name: 'gold', settings: { rules: { humans: 'deny' } }, subdomains: ['www', 'shop'] },
    });
    expect(parsePlanChange({ name: 'gold', subdomains: 'none' })).toEqual({ ok: true, change: { name: 'gold', subdomains: [] } });
  });

  it('keys every problem by its field, with the path inside the settings', () => {
    const result = parsePlanChange({ name: '', settings: '{"rules":{"humans":"maybe"}}', subdomains: 'bad_label!' });
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems.map(({ field, path }) => [field, path])).toEqual([
      ['name', []],
      ['settings', ['rules', 'humans']],
      ['subdomains', [0]],
    ]);
    expect(parsePlanChange({ name: 'gold', settings: '{rules:' })).toMatchObject({
      ok: false,
      problems: [{ field: 'settings', path: [], message: expect.stringMatching(/^is not JSON/) }],
    });
  });

  it('refuses a change that changes nothing', () => {
    expect(parsePlanChange({ name: 'gold' })).toEqual({
      ok: false,
      problems: [{ field: null, path: [], message: 'nothing to change: give the settings, the subdomains or both' }],
    });
  });
});
