import { describe, expect, it } from 'vitest';
import { trafficView } from '../../src/core/traffic-view.js';

const HOUR = 3_600_000;
const now = Date.UTC(2026, 10, 20, 10, 30);
const row = (at: number, permitted: number) => ({ hour: Math.floor(at / HOUR), total: permitted, permitted, blocked: 0, mitigated: 0 });

describe('trafficView', () => {
  it('draws every hour of the range for a website older than the range', () => {
    const view = trafficView([row(now - 2 * HOUR, 5)], now, '24h', now - 60 * 24 * HOUR);
    expect(view.series.x).toHaveLength(24);
    expect(view.series.permitted.reduce((a, b) => a + b, 0)).toBe(5);
  });

  it('starts the chart at the hour the website was added: no empty days before it existed', () => {
    const addedAt = now - 3 * 24 * HOUR - 20 * 60_000;
    const view = trafficView([row(now - 2 * HOUR, 5)], now, '30d', addedAt);
    expect(view.series.x[0]).toBe((Math.floor(addedAt / HOUR) * HOUR) / 1000);
    expect(view.series.x).toHaveLength(3 * 24 + 1);
    expect(view.series.permitted.at(-3)).toBe(5);
  });

  it('starts at the first counted hour when the statistics are older than the record (a domain moved between accounts)', () => {
    const view = trafficView([row(now - 50 * HOUR, 7)], now, '7d', now - 2 * HOUR);
    expect(view.series.x[0]).toBe((Math.floor(now / HOUR) - 50) * 3600);
    expect(view.series.permitted[0]).toBe(7);
  });

  it('still shows the current hour for a website added a minute ago', () => {
    const view = trafficView([], now, '7d', now - 60_000);
    expect(view.series.x).toEqual([(Math.floor(now / HOUR) * HOUR) / 1000]);
  });
});
