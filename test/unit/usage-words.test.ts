import { createTranslations, loadCatalogs } from '../../src/core/i18n.js';
import { paths } from '../../src/paths.js';
import { describe, expect, it } from 'vitest';
import { createFormat } from '../../src/core/format.js';
import { accountHeader, nearLimitSentence, pausedByLimit } from '../../src/core/usage-words.js';

/** The English messages (locales/en.json), as the pages pass them. */
const t = createTranslations(loadCatalogs(paths.locales)).en;

const format = createFormat();
const period = { kind: 'monthly' as const, start: Date.UTC(2026, 10, 1), end: Date.UTC(2026, 11, 1) };
const now = Date.UTC(2026, 10, 20, 10, 30);

describe('nearLimitSentence', () => {
  it('says in a sentence where protection pauses once the warning threshold is reached', () => {
    expect(nearLimitSentence({ usage: 900, limit: 1100, warningPercent: 80 }, format, t)).toBe(
      'Close to your limit: protection pauses at 1,100 hits.',
    );
    expect(nearLimitSentence({ usage: 900, limit: 1100, warningPercent: 80 }, format, t, 'account')).toBe(
      'Close to your account’s limit: protection of all your domains pauses at 1,100 hits.',
    );
  });

  it('says nothing below the threshold, at or over the limit (paused then), or without a limit', () => {
    expect(nearLimitSentence({ usage: 879, limit: 1100, warningPercent: 80 }, format, t)).toBeNull();
    expect(nearLimitSentence({ usage: 1100, limit: 1100, warningPercent: 80 }, format, t)).toBeNull();
    expect(nearLimitSentence({ usage: 5000, limit: null, warningPercent: 80 }, format, t)).toBeNull();
  });
});

describe('accountHeader', () => {
  it('gives the hits against the account limit, the day the period resets and the forecast', () => {
    const header = accountHeader(
      { hits: 950, limit: 1100, warningPercent: 80, period, forecastAt: Date.UTC(2026, 10, 27, 14), now },
      format,
      t,
    );
    expect(header).toEqual({
      usage: '950 of 1,100 hits this period',
      resets: 'The period resets on 1 Dec 2026.',
      forecast: 'At this rate, the limit is reached on 27 Nov.',
      near: 'Close to your account’s limit: protection of all your domains pauses at 1,100 hits.',
      reached: null,
    });
  });

  it('says "no limit" without one (and forecasts nothing), and says when the limit is not reached this period', () => {
    const header = accountHeader({ hits: 1234567, limit: null, warningPercent: 80, period, forecastAt: null, now }, format, t);
    expect(header.usage).toBe('1,234,567 hits this period (no limit)');
    expect(header.forecast).toBeNull();
    expect(accountHeader({ hits: 5, limit: 1100, warningPercent: 80, period, forecastAt: null, now }, format, t).forecast).toBe(
      'At this rate, the limit is not reached this period.',
    );
  });

  it('says when the account limit is reached and until when protection is paused', () => {
    const header = accountHeader({ hits: 1200, limit: 1100, warningPercent: 80, period, forecastAt: now - 3_600_000, now }, format, t);
    expect(header.near).toBeNull();
    expect(header.forecast).toBeNull();
    expect(header.reached).toBe('Your account’s limit is reached: protection of your domains is paused until 1 Dec 2026.');
  });
});

describe('pausedByLimit', () => {
  const since = Date.UTC(2026, 10, 18, 9, 5);
  it('says since when, until which day, and links the host’s next step with the account and domain filled in, encoded', () => {
    const words = pausedByLimit(
      {
        since,
        period,
        account: 'al ice',
        domain: 'shop.example',
        upgradeUrl: 'https://host.example/upgrade?account={account}&site={domain}',
      },
      format,
      t,
    );
    expect(words).toEqual({
      since: 'Paused since 18 Nov 2026, 09:05 UTC.',
      until: 'Protection resumes on 1 Dec 2026, when the next period starts.',
      nextStep: { href: 'https://host.example/upgrade?account=al%20ice&site=shop.example', text: 'Raise your limit' },
    });
  });

  it('tells the customer to contact their host when the host set no upgrade address, and leaves out an unknown start', () => {
    const words = pausedByLimit({ since: null, period, account: 'alice', domain: 'shop.example', upgradeUrl: undefined }, format, t);
    expect(words.since).toBeNull();
    expect(words.nextStep).toEqual({ href: null, text: 'To resume sooner, contact your host.' });
  });
});
