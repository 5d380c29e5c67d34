/**
 * `wpp hook emit <type> --account A [...]`: the generic adapter for panels without one of
 * their own (ISPmanager handlers, WHMCS modules, scripts). Which fields a type needs comes
 * from the event schema; `--id` lets a caller that has its own idempotency key use it.
 */
import { parseArgs } from 'node:util';
import { PANEL_EVENT_TYPES, type PanelEventType } from '../events.js';
import { failure, finishDrafts, type AdapterResult } from './result.js';

const OPTIONS = {
  account: { type: 'string' },
  email: { type: 'string' },
  domain: { type: 'string' },
  subdomain: { type: 'string' },
  plan: { type: 'string' },
  ip: { type: 'string' },
  id: { type: 'string' },
  'previous-account': { type: 'string' },
  reseller: { type: 'string' },
} as const;

/** The fields `emit` takes as options, for the command that declares them. */
export const EMIT_OPTIONS = Object.keys(OPTIONS) as (keyof typeof OPTIONS)[];

const parse = (args: string[]) => {
  const parsed = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: true, tokens: true });
  // parseArgs keeps the last of a repeated option: `--account a --account b` would queue an event for b.
  const names = parsed.tokens.flatMap((token) => (token.kind === 'option' ? [token.name] : []));
  const repeated = [...new Set(names.filter((name, i) => names.indexOf(name) !== i))];
  if (repeated.length > 0) throw new Error(`${repeated.map((name) => `--${name}`).join(', ')} given more than once: give each option once`);
  return parsed;
};

const isEventType = (value: string): value is PanelEventType => (PANEL_EVENT_TYPES as readonly string[]).includes(value);

export function translateEmit(args: string[], now?: Date): AdapterResult {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return failure(`emit: ${message}; options: ${EMIT_OPTIONS.map((name) => `--${name}`).join(', ')}`, [{ path: 'args', message }]);
  }
  const [type, ...extra] = parsed.positionals;
  if (type === undefined || !isEventType(type)) {
    return failure(
      `emit needs an event type first${type === undefined ? '' : `, not "${type}"`}; one of: ${PANEL_EVENT_TYPES.join(', ')}`,
      [{ path: 'type', message: 'unknown or missing event type' }],
    );
  }
  if (extra.length > 0) {
    return failure(`emit takes one event type; unexpected: ${extra.join(' ')}`, [
      { path: 'args', message: 'unexpected positional arguments' },
    ]);
  }
  const { account, email, domain, subdomain, plan, ip, id, 'previous-account': previousAccount } = parsed.values;
  // `--reseller ""`: the host's own account (null); no --reseller: not said.
  const given = parsed.values.reseller;
  const reseller = given === undefined ? undefined : given.trim() === '' ? null : given;
  return finishDrafts(
    'emit',
    'emit',
    [
      {
        draft: { type, account: account as string, email, domain, subdomain, plan, ip, id, previousAccount, reseller },
        from: {
          account: '--account',
          email: '--email',
          domain: '--domain',
          subdomain: '--subdomain',
          plan: '--plan',
          ip: '--ip',
          id: '--id',
          previousAccount: '--previous-account',
          reseller: '--reseller',
        },
      },
    ],
    now,
  );
}
