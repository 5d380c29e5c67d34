import { describe, expect, it } from 'vitest';
import { createFormat } from '../../src/core/format.js';
import { spikeNotices } from '../../src/core/website-notices.js';
import type { WebsiteNotice } from '../../src/db/read-schedule.repo.js';

const HOUR = 3_600_000;
const now = Date.parse('2026-11-20T10:30:00Z');

let id = 0;
const spike = (startedAt: number, endedAt: number | null, blockedPerHour = 12_000, baselinePerHour = 40): WebsiteNotice => ({
  id: ++id,
  domain: 'a.example',
  account: 'alice',
  kind: 'attack_spike',
  startedAt,
  endedAt,
  blockedPerHour,
  baselinePerHour,
});

describe('spikeNotices', () => {
  it('shows the spike going on with its rates, and the last three that ended this week', () => {
    const notices = [
      spike(now - 2 * HOUR, null),
      spike(now - 10 * HOUR, now - 9 * HOUR, 800, 5),
      spike(now - 30 * HOUR, now - 29 * HOUR),
      spike(now - 50 * HOUR, now - 49 * HOUR),
      spike(now - 70 * HOUR, now - 69 * HOUR),
    ];
    const view = spikeNotices(notices, now, createFormat());
    expect(view.ongoing).toEqual({ startedAt: '20 Nov, 08:30 UTC', endedAt: null, blockedPerHour: '12,000', baselinePerHour: '40' });
    expect(view.recent).toEqual([
      { startedAt: '20 Nov, 00:30 UTC', endedAt: '20 Nov, 01:30 UTC', blockedPerHour: '800', baselinePerHour: '5' },
      { startedAt: '19 Nov, 04:30 UTC', endedAt: '19 Nov, 05:30 UTC', blockedPerHour: '12,000', baselinePerHour: '40' },
      { startedAt: '18 Nov, 08:30 UTC', endedAt: '18 Nov, 09:30 UTC', blockedPerHour: '12,000', baselinePerHour: '40' },
    ]);
  });

  it('leaves out spikes that ended more than 7 days ago, and shows nothing without notices', () => {
    expect(spikeNotices([spike(now - 8 * 24 * HOUR, now - 7 * 24 * HOUR - 1)], now, createFormat())).toEqual({ ongoing: null, recent: [] });
    expect(spikeNotices([], now, createFormat())).toEqual({ ongoing: null, recent: [] });
  });

  it("writes the times in the panel's time zone through the one formatter", () => {
    const view = spikeNotices([spike(now - 2 * HOUR, null)], now, createFormat({ timeZone: 'Asia/Tokyo' }));
    expect(view.ongoing?.startedAt).toMatch(/^20 Nov, 17:30 (JST|GMT\+9)$/);
  });
});
