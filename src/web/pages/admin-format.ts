/**
 * How the admin pages write times, durations, numbers and website states: plain words, times
 * through the one formatter (core/format.ts: the panel's zone, named, so an admin can compare
 * them with logs), and "5 minutes ago" beside them. Pure; handed to the views as `fmt`.
 */
import type { Format } from '../../core/format.js';
import type { Translate } from '../../core/i18n.js';
import { describeWebsite, type StateInput } from '../../core/website-state.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const isTime = (ms: number | null | undefined): ms is number => ms !== null && ms !== undefined && Number.isFinite(ms);

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** "just now", "5 minutes ago", "in 3 days", seen from `now`. */
export function ago(ms: number | null | undefined, now: number): string {
  if (!isTime(ms)) return 'never';
  const diff = now - ms;
  const size = Math.abs(diff);
  if (size < MINUTE) return 'just now';
  const words =
    size < HOUR
      ? plural(Math.floor(size / MINUTE), 'minute')
      : size < DAY
        ? plural(Math.floor(size / HOUR), 'hour')
        : plural(Math.floor(size / DAY), 'day');
  return diff >= 0 ? `${words} ago` : `in ${words}`;
}

/** "350 ms", "40 s", "2 min 5 s", "1 h 3 min". */
export function duration(ms: number | null | undefined): string {
  if (!isTime(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min${seconds % 60 ? ` ${seconds % 60} s` : ''}`;
  return `${Math.floor(seconds / 3600)} h${Math.floor((seconds % 3600) / 60) ? ` ${Math.floor((seconds % 3600) / 60)} min` : ''}`;
}

export type BadgeKind = 'ok' | 'warn' | 'bad' | 'info' | 'neutral';

/** A website's state in plain words, and the badge it wears: the admin's words of core/website-state.ts. */
export function websiteState(website: StateInput, t: Translate): { words: string; badge: BadgeKind; summary: string; todo: string | null } {
  const state = describeWebsite(website, t, 'admin');
  return { words: state.label, badge: state.tone, summary: state.summary, todo: state.todo };
}

const LEVEL_WORDS: Record<string, [string, BadgeKind]> = {
  over: ['Over the limit', 'bad'],
  near: ['Near the limit', 'warn'],
  ok: ['Within the limit', 'ok'],
  none: ['No limit', 'neutral'],
};

/** Where a website stands against its limits, in words and a badge. */
export const levelWords = (level: string) => {
  const [words, badge] = LEVEL_WORDS[level] ?? [level, 'neutral'];
  return { words, badge };
};

/**
 * The views' `fmt`, made once with the pages' Format: `when` "22 Nov 2026, 12:00 UTC" (the
 * panel's zone when known) and `count` 12,345 through it, an empty value a dash.
 */
export function createAdminFormat(format: Format, t: Translate) {
  return {
    when: (ms: number | null | undefined) => (isTime(ms) ? format.dateTime(ms) : '–'),
    count: (n: number | null | undefined) => (n === null || n === undefined ? '–' : format.number(n)),
    ago,
    duration,
    websiteState: (website: StateInput) => websiteState(website, t),
    levelWords,
  };
}

export type AdminFormat = ReturnType<typeof createAdminFormat>;
