import { describe, expect, it } from 'vitest';
import { createFormat } from '../../src/core/format.js';
import { createTranslations, loadCatalogs } from '../../src/core/i18n.js';
import { createAdminFormat, websiteState } from '../../src/web/pages/admin-format.js';
import { hrefWith, pagerLinks, parseQuery, pageField } from '../../src/web/pages/admin-query.js';
import { z } from 'zod';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const t = createTranslations(loadCatalogs('locales'));

describe('admin page formatting', () => {
  it('writes times through the one formatter (the panel zone, named), how long ago, and durations, in the page language', () => {
    const fmt = createAdminFormat(createFormat(), t.en);
    expect(fmt.when(NOW)).toBe('22 Nov 2026, 12:00 UTC');
    expect(fmt.when(null)).toBe('–');
    expect(createAdminFormat(createFormat({ timeZone: 'Asia/Tokyo' }), t.en).when(NOW)).toMatch(/^22 Nov 2026, 21:00 (JST|GMT\+9)$/);
    expect(fmt.count(1234567)).toBe('1,234,567');
    expect(fmt.count(null)).toBe('–');
    expect(fmt.ago(NOW - 30_000, NOW)).toBe('just now');
    expect(fmt.ago(NOW - 60_000, NOW)).toBe('1 minute ago');
    expect(fmt.ago(NOW - 5 * 3_600_000, NOW)).toBe('5 hours ago');
    expect(fmt.ago(NOW + 3 * 86_400_000, NOW)).toBe('in 3 days');
    expect(fmt.ago(null, NOW)).toBe('never');
    expect(fmt.duration(350)).toBe('350 ms');
    expect(fmt.duration(125_000)).toBe('2 min 5 sec');
    expect(fmt.duration(null)).toBe('–');
    expect(fmt.levelWords('near')).toEqual({ words: 'Near the limit', badge: 'warn' });
    expect(fmt.pauser('domain_removed')).toBe('domain removed');
    expect(fmt.status('pending_dns')).toBe('pending dns');

    const de = createAdminFormat(createFormat({ locale: 'de' }), t.de);
    expect(de.count(1234567)).toBe('1.234.567');
    expect(de.ago(NOW - 30_000, NOW)).toBe('gerade eben');
    expect(de.ago(NOW - 5 * 3_600_000, NOW)).toBe('vor 5 Stunden');
    expect(de.ago(null, NOW)).toBe('nie');
    expect(de.levelWords('over')).toEqual({ words: 'Über dem Limit', badge: 'bad' });
    expect(de.pauser('admin')).toBe('Admin');
    expect(createAdminFormat(createFormat({ locale: 'es' }), t.es).status('paused')).toBe('en pausa');
  });

  it("shows a website's state in the admin's words of core/website-state, and its tone as the badge", () => {
    const base = { domain: 'shop.example', state: 'active', desiredStatus: 'paused', providerStatus: 'paused' } as const;
    expect(websiteState({ ...base, pausedBy: 'enforcement' }, t.en)).toMatchObject({ words: 'Paused by the hit limit', badge: 'warn' });
    expect(websiteState({ ...base, pausedBy: 'admin' }, t.en).words).toBe('Paused by an admin');
    expect(websiteState({ ...base, state: 'removed', pausedBy: 'domain_removed' }, t.en).words).toBe('Removed');
    expect(websiteState({ ...base, desiredStatus: 'online', providerStatus: 'pending_dns', pausedBy: null }, t.en).words).toBe(
      'Waiting for DNS',
    );
  });
});

describe('admin page queries', () => {
  it('keeps every filter in page links and marks gaps', () => {
    expect(hrefWith('/admin/websites', { q: 'shop', state: undefined, page: 2 })).toBe('/admin/websites?q=shop&page=2');
    const links = pagerLinks('/admin/websites', { q: 'shop' }, 5, 20);
    expect(links.map((l) => l.label)).toEqual(['Previous', '1', '…', '3', '4', '5', '6', '7', '…', '20', 'Next']);
    expect(links.find((l) => l.current)?.label).toBe('5');
    expect(links[0]?.href).toBe('/admin/websites?q=shop&page=4');
    expect(links[1]?.href).toBe('/admin/websites?q=shop');
    expect(pagerLinks('/x', {}, 1, 1).map((l) => l.href)).toEqual([null, '/x', null]);
    expect(pagerLinks('/x', { page: 3 }, 2, 3, 'runpage')[0]?.href).toBe('/x?page=3');
  });

  it('refuses a value it cannot use with a BAD_REQUEST naming it, and reads an empty field as no filter', () => {
    const schema = z.object({ page: pageField });
    expect(parseQuery(schema, { page: '' })).toEqual({});
    expect(parseQuery(schema, { page: '3' })).toEqual({ page: 3 });
    expect(() => parseQuery(schema, { page: '2.5' })).toThrow(/page: page must be a whole number/);
    expect(() => parseQuery(schema, { page: ['1', '2'] })).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
  });
});
