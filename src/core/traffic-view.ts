/**
 * A website's hits over the last 24 hours, 7 days and 30 days, from one read of its hourly
 * buckets: the totals per range, and the hourly series of one range for the chart (every
 * hour present, quiet hours as zeros, so the chart's time axis is even).
 */
import type { Counters } from './quota.js';

export const TRAFFIC_RANGES = { '24h': 24, '7d': 7 * 24, '30d': 30 * 24 } as const;
export type TrafficRange = keyof typeof TRAFFIC_RANGES;

const HOUR_MS = 3_600_000;

export interface TrafficView {
  totals: Record<TrafficRange, Counters>;
  /** Hour starts (epoch seconds, the chart's x) and the hits permitted and blocked in each. */
  series: { x: number[]; permitted: number[]; blocked: number[] };
}

/** The hours a page reads: the longest range, ending with the current hour. */
export function trafficWindow(now: number): { fromHour: number; toHour: number } {
  const toHour = Math.floor(now / HOUR_MS) + 1;
  return { fromHour: toHour - TRAFFIC_RANGES['30d'], toHour };
}

/**
 * `since`: when the website was added; the chart starts at that hour (or at its first counted
 * hour, if earlier) when it is inside the range, so a new website's chart is not mostly empty
 * days from before it existed.
 */
export function trafficView(rows: readonly ({ hour: number } & Counters)[], now: number, range: TrafficRange, since = 0): TrafficView {
  const { toHour } = trafficWindow(now);
  const zero = (): Counters => ({ total: 0, permitted: 0, blocked: 0, mitigated: 0 });
  const totals = { '24h': zero(), '7d': zero(), '30d': zero() } satisfies Record<TrafficRange, Counters>;
  const byHour = new Map<number, { hour: number } & Counters>();
  for (const row of rows) {
    byHour.set(row.hour, row);
    for (const [name, hours] of Object.entries(TRAFFIC_RANGES) as [TrafficRange, number][]) {
      if (row.hour < toHour - hours) continue;
      totals[name].total += row.total;
      totals[name].permitted += row.permitted;
      totals[name].blocked += row.blocked;
      totals[name].mitigated += row.mitigated;
    }
  }
  const series = { x: [] as number[], permitted: [] as number[], blocked: [] as number[] };
  // Hits counted before `since` (a domain moved between accounts is a new record with old statistics) are still drawn.
  const firstCounted = rows.reduce((first, row) => Math.min(first, row.hour), Infinity);
  const firstHour = Math.min(toHour - 1, Math.max(toHour - TRAFFIC_RANGES[range], Math.min(Math.floor(since / HOUR_MS), firstCounted)));
  for (let hour = firstHour; hour < toHour; hour++) {
    const row = byHour.get(hour);
    series.x.push((hour * HOUR_MS) / 1000);
    series.permitted.push(row?.permitted ?? 0);
    series.blocked.push(row?.blocked ?? 0);
  }
  return { totals, series };
}
