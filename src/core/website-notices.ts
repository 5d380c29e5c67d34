/**
 * A website's attack-spike notices as its pages show them (the admin's and the customer's
 * alike): the spike going on now, and a few recent ones. Pure.
 */
import type { WebsiteNotice } from '../db/read-schedule.repo.js';
import type { Format } from './format.js';

/** Ended spikes older than this are history, not news. */
export const RECENT_SPIKES_MS = 7 * 24 * 3_600_000;
/** How many ended spikes a page lists: a few, not a log. */
export const RECENT_SPIKES_SHOWN = 3;
/** How many notices to read for that: the ongoing one, the recent ones, and some slack. */
export const NOTICES_READ = 10;

export interface SpikeView {
  /** "27 Nov, 14:05 UTC". */
  startedAt: string;
  endedAt: string | null;
  blockedPerHour: string;
  baselinePerHour: string;
}

export interface SpikeNotices {
  ongoing: SpikeView | null;
  recent: SpikeView[];
}

/** A spike's times to the minute ("27 Nov, 14:05 UTC", in the panel's zone) and its rates as whole numbers. */
const viewOf = (notice: WebsiteNotice, format: Pick<Format, 'dayTime' | 'number'>): SpikeView => ({
  startedAt: format.dayTime(notice.startedAt),
  endedAt: notice.endedAt === null ? null : format.dayTime(notice.endedAt),
  blockedPerHour: format.number(Math.round(notice.blockedPerHour)),
  baselinePerHour: format.number(Math.round(notice.baselinePerHour)),
});

/** From a website's notices (newest first, ReadScheduleRepo.notices): the spike going on, and the last few that ended this week. */
export function spikeNotices(notices: WebsiteNotice[], now: number, format: Pick<Format, 'dayTime' | 'number'>): SpikeNotices {
  const spikes = notices.filter((notice) => notice.kind === 'attack_spike');
  const ongoing = spikes.find((notice) => notice.endedAt === null);
  const recent = spikes
    .filter((notice) => notice.endedAt !== null && notice.endedAt > now - RECENT_SPIKES_MS)
    .slice(0, RECENT_SPIKES_SHOWN);
  return { ongoing: ongoing ? viewOf(ongoing, format) : null, recent: recent.map((notice) => viewOf(notice, format)) };
}
