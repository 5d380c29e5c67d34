/**
 * How the admin pages write times, durations, numbers and website states: in the page's
 * language (`t`, the catalogs' adminCommon block), times through the one formatter
 * (core/format.ts: the panel's zone, named, so an admin can compare them with logs), and
 * "5 minutes ago" beside them. Pure; handed to the views as `fmt`.
 */
import type { Format } from '../../core/format.js';
import type { Translate } from '../../core/i18n.js';
import { describeWebsite, type StateInput } from '../../core/website-state.js';

const MINUTE = 60_000;

const isTime = (ms: number | null | undefined): ms is number => ms !== null && ms !== undefined && Number.isFinite(ms);

export type BadgeKind = 'ok' | 'warn' | 'bad' | 'info' | 'neutral';

/** A website's state in plain words, and the badge it wears: the admin's words of core/website-state.ts. */
export function websiteState(website: StateInput, t: Translate): { words: string; badge: BadgeKind; summary: string; todo: string | null } {
  const state = describeWebsite(website, t, 'admin');
  return { words: state.label, badge: state.tone, summary: state.summary, todo: state.todo };
}

const LEVEL_BADGES: Record<string, BadgeKind> = { over: 'bad', near: 'warn', ok: 'ok', none: 'neutral' };

/**
 * The views' `fmt`, made once per language with its Format and `t`: `when` "22 Nov 2026, 12:00
 * UTC" (the panel's zone when known), `count` 12,345, an empty value a dash; `ago` "just now"
 * under a minute, else the Format's "5 minutes ago"; the words of a limit's level, a pauser and
 * a provider status.
 */
export function createAdminFormat(format: Format, t: Translate) {
  const word = (group: 'pausers' | 'statuses', value: string) => t(`adminCommon.${group}.${value}`, { defaultValue: value });
  return {
    when: (ms: number | null | undefined) => (isTime(ms) ? format.dateTime(ms) : '–'),
    count: (n: number | null | undefined) => (n === null || n === undefined ? '–' : format.number(n)),
    /** "just now", "5 minutes ago", "in 3 days", seen from `now`; "never" without a time. */
    ago: (ms: number | null | undefined, now: number) =>
      !isTime(ms) ? t('adminCommon.never') : Math.abs(now - ms) < MINUTE ? t('adminCommon.justNow') : format.ago(ms, now),
    /** "350 ms", "40 sec", "2 min 5 sec" in the page's language; "–" without one. */
    duration: (ms: number | null | undefined) => (isTime(ms) ? format.duration(ms) : '–'),
    websiteState: (website: StateInput) => websiteState(website, t),
    /** Where a website stands against its limits, in words and a badge. */
    levelWords: (level: string) => ({
      words: t(`adminCommon.levels.${level}`, { defaultValue: level }),
      badge: LEVEL_BADGES[level] ?? 'neutral',
    }),
    /** Who paused a website ("admin", "domain removed"). */
    // A package without web protection is worded by its part of the catalog (packages.*).
    pauser: (value: string) => (value === 'package' ? t('packages.pauser') : word('pausers', value)),
    /** A status the provider reports or the plugin asks for ("online", "pending dns"). */
    status: (value: string) => word('statuses', value),
  };
}

export type AdminFormat = ReturnType<typeof createAdminFormat>;
