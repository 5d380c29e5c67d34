/**
 * What every panel adapter hands back, and the one place drafts become validated events.
 * Adapters translate only: no I/O, no database. A failure carries a message a panel
 * administrator can act on and the issues in terms of the panel's own field names.
 */
import { isIP } from 'node:net';
import { finishEvent, type PanelEvent, type PanelEventDraft } from '../events.js';

export interface AdapterIssue {
  path: string;
  message: string;
}

export type AdapterResult = { ok: true; events: PanelEvent[]; note: string } | { ok: false; error: string; details: AdapterIssue[] };

type DraftField = 'account' | 'email' | 'plan' | 'domain' | 'subdomain' | 'ip' | 'id' | 'previousAccount' | 'reseller';

/** A draft plus where each of its fields came from in the panel's input (for messages). */
export interface SourcedDraft {
  draft: PanelEventDraft;
  from: Partial<Record<DraftField, string>>;
}

export function failure(error: string, details: AdapterIssue[] = []): AdapterResult {
  return { ok: false, error, details };
}

export function nothingToDo(note: string): AdapterResult {
  return { ok: true, events: [], note };
}

/**
 * Finishes every draft with `finishEvent`; one invalid draft fails the whole translation,
 * so a hook never half-applies (e.g. an account without its main domain).
 */
export function finishDrafts(source: string, label: string, drafts: SourcedDraft[], now: Date = new Date()): AdapterResult {
  const events: PanelEvent[] = [];
  const messages: string[] = [];
  const details: AdapterIssue[] = [];
  for (const { draft, from } of drafts) {
    const parsed = finishEvent(source, draft, now);
    if (parsed.success) {
      events.push(parsed.data);
      continue;
    }
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? '') as DraftField | '';
      const where = (field && from[field]) || field || 'input';
      const given = field === '' ? undefined : (draft as Record<string, unknown>)[field];
      const missing = field !== '' && (given === undefined || (typeof given === 'string' && given.trim() === ''));
      // Drafts of one hook share their sources: say a missing user once, not once per event.
      if (details.some((detail) => detail.path === where)) continue;
      messages.push(
        missing ? `${draft.type} needs ${article(field)} ${field}: ${where} is missing` : `${draft.type}: ${where} ${issue.message}`,
      );
      details.push({ path: where, message: missing ? `${field} is required for ${draft.type}` : issue.message });
    }
  }
  if (messages.length > 0) return failure(`${label}: ${messages.join('; ')}`, details);
  return { ok: true, events, note: `${label}: ${events.map(describeEvent).join(', ')}` };
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? 'an' : 'a';
}

function describeEvent(event: PanelEvent): string {
  const target = event.domain ? (event.subdomain ? `${event.subdomain}.${event.domain}` : event.domain) : event.account;
  const owner = event.type === 'account.transferred' ? ` -> ${event.reseller ?? 'the host'}` : '';
  return `${event.type} ${target}${event.plan && event.type === 'plan.changed' ? ` -> ${event.plan}` : ''}${owner}`;
}

/** A panel value as text: trimmed, empty as absent; numbers (JSON ids, flags) as their digits. */
export function text(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** The owner names that mean the panel's own administrator (the host), per panel whose owner field names one. */
export const HOST_OWNERS = { cpanel: ['root'], directadmin: ['admin'] } as const;

/**
 * Who owns an account, from the panel's owner field: the panel's own administrator (cPanel's
 * `root`, DirectAdmin's and Plesk's `admin`) means the host's own account (null); absent, the
 * panel did not say (undefined).
 */
export function resellerOf(owner: string | undefined, hostOwners: readonly string[]): string | null | undefined {
  if (owner === undefined) return undefined;
  return hostOwners.includes(owner.toLowerCase()) ? null : owner;
}

/** The first value that is an IP address; for panel fields that also carry flags like "y"/"n". */
export function firstIp(...values: unknown[]): string | undefined {
  for (const value of values) {
    const candidate = text(value);
    if (candidate !== undefined && isIP(candidate) !== 0) return candidate;
  }
  return undefined;
}

/**
 * A subdomain relative to its domain: panels hand either the label ("blog") or the full
 * name ("blog.example.com"); the schema wants the label.
 */
export function relativeLabel(subdomain: string | undefined, domain: string | undefined): string | undefined {
  if (subdomain === undefined || domain === undefined) return subdomain;
  const suffix = `.${domain.replace(/\.$/, '')}`.toLowerCase();
  const name = subdomain.replace(/\.$/, '');
  return name.toLowerCase().endsWith(suffix) && name.length > suffix.length ? name.slice(0, -suffix.length) : name;
}
