/**
 * Launch tokens: how a panel signs its user into the plugin's pages (issue 9). The panel,
 * which has already authenticated the user, runs `wpp launch-url`; the token names the role,
 * the account (or the admin), the panel and, when the panel knows it, the user's language, is HMAC-signed with the sign-in key (secrets.ts:
 * only in the data folder, never the hook secret), lives at most 60 seconds, and carries a random nonce so the page that exchanges it for a session can
 * record it and refuse a replay. Pure: the clock and the nonce come in as parameters.
 *
 * Format: `<base64url(JSON claims)>.<base64url(HMAC-SHA256 of the first part)>`. The
 * signature covers the encoded claims exactly as sent, so nothing is parsed before it checks.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { accountNameSchema } from '../panel/events.js';
import { localeClaimSchema } from './locale.js';
import { normalizeDomain } from '../provider/spec.js';

/** The longest a token may live: enough for a panel's redirect, too short to be worth stealing. */
export const LAUNCH_TOKEN_MAX_AGE_MS = 60_000;

/**
 * The life of the admin link `npm start` prints with the embedded sandbox only: a newcomer
 * reads the terminal, then opens the browser. Nothing real is behind a sandbox plugin.
 */
export const DEMO_LAUNCH_TOKEN_MAX_AGE_MS = 15 * 60_000;

const domainClaim = z.string().transform((value, ctx) => {
  const domain = normalizeDomain(value);
  if (domain === null) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a domain name` });
    return z.NEVER;
  }
  return domain;
});

const panelClaim = z.string().trim().min(1).max(50);
const common = {
  panel: panelClaim,
  // The panel user's language (core/locale.ts), when the panel knows it; a value that is no language tag is dropped.
  locale: localeClaimSchema,
  nonce: z.string().min(16).max(64),
  issuedAt: z.number().int(),
  expiresAt: z.number().int(),
};

export const launchClaimsSchema = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('customer'), account: accountNameSchema, domain: domainClaim.optional(), ...common }),
  z.strictObject({ role: z.literal('admin'), admin: z.string().trim().min(1).max(100), ...common }),
  // A reseller of the panel: the admin pages for the accounts the panel says are theirs (accounts.reseller).
  z.strictObject({ role: z.literal('reseller'), reseller: accountNameSchema, ...common }),
]);
export type LaunchClaims = z.output<typeof launchClaimsSchema>;

/** What the panel asks for; the nonce and the times are added when the token is made. `locale`: the panel user's language tag. */
export type LaunchRequest = (
  | { role: 'customer'; account: string; domain?: string | undefined; panel: string }
  | { role: 'admin'; admin: string; panel: string }
  | { role: 'reseller'; reseller: string; panel: string }
) & { locale?: string | undefined };

/** Who a token's claims sign in: the account, the admin or the reseller (the session's subject). */
export const claimsSubject = (claims: LaunchClaims): string =>
  claims.role === 'customer' ? claims.account : claims.role === 'admin' ? claims.admin : claims.reseller;

/**
 * Why a token was refused; stable codes for the refusal page and the log (never the token
 * itself). `replayed` and `wrong_role` are decided where the token is used (core/sessions.ts).
 */
export type LaunchRefusal = 'malformed' | 'bad_signature' | 'expired' | 'not_yet_valid' | 'replayed' | 'wrong_role';

export class LaunchTokenError extends Error {
  override readonly name = 'LaunchTokenError';
  constructor(
    readonly reason: LaunchRefusal,
    message: string,
  ) {
    super(message);
  }
}

const sign = (secret: string, encodedClaims: string) =>
  createHmac('sha256', secret).update(`wpp-launch\u0000${encodedClaims}`).digest('base64url');

export interface LaunchTokenOptions {
  now: number;
  /** Default 60000 ms, and never more than `maxLifeMs`. */
  maxAgeMs?: number;
  /** The cap on `maxAgeMs`: LAUNCH_TOKEN_MAX_AGE_MS, or DEMO_LAUNCH_TOKEN_MAX_AGE_MS in sandbox mode. */
  maxLifeMs?: number;
  /** Default: 16 random bytes. For tests. */
  nonce?: string;
}

/** A signed token for `request`, valid from `now` for at most 60 seconds. Refuses a request the claims schema refuses. */
export function createLaunchToken(
  secret: string,
  request: LaunchRequest,
  options: LaunchTokenOptions,
): { token: string; claims: LaunchClaims } {
  const maxAgeMs = Math.min(options.maxAgeMs ?? LAUNCH_TOKEN_MAX_AGE_MS, options.maxLifeMs ?? LAUNCH_TOKEN_MAX_AGE_MS);
  const claims = launchClaimsSchema.parse({
    ...request,
    nonce: options.nonce ?? randomBytes(16).toString('base64url'),
    issuedAt: options.now,
    expiresAt: options.now + maxAgeMs,
  });
  const encoded = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return { token: `${encoded}.${sign(secret, encoded)}`, claims };
}

/**
 * The claims of a token signed with `secret` and valid at `now`; throws LaunchTokenError
 * otherwise. The signature is checked (in constant time) before anything in the token is
 * read. Single use is the caller's part: record `claims.nonce` and refuse one seen before.
 * `maxLifeMs` is the longest life a token may claim (the demo's 15 minutes in sandbox mode).
 */
export function verifyLaunchToken(secret: string, token: string, now: number, maxLifeMs = LAUNCH_TOKEN_MAX_AGE_MS): LaunchClaims {
  const parts = token.split('.');
  if (parts.length !== 2 || !parts[0] || !parts[1]) throw new LaunchTokenError('malformed', 'the launch token is not a token');
  const [encoded, signature] = parts as [string, string];
  const expected = Buffer.from(sign(secret, encoded));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new LaunchTokenError('bad_signature', 'the launch token was not signed by this panel');
  }
  let claims: LaunchClaims;
  try {
    claims = launchClaimsSchema.parse(JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')));
  } catch {
    throw new LaunchTokenError('malformed', 'the launch token does not hold valid claims');
  }
  // A token claiming a longer life than the maximum was not made here, whatever it says.
  if (claims.expiresAt - claims.issuedAt > maxLifeMs) throw new LaunchTokenError('malformed', 'the launch token claims too long a life');
  if (now >= claims.expiresAt) throw new LaunchTokenError('expired', 'the launch token has expired: open the page from the panel again');
  // A little clock skew between the panel's process and the server is fine; a token from the future is not.
  if (claims.issuedAt > now + 5_000) throw new LaunchTokenError('not_yet_valid', 'the launch token is not valid yet');
  return claims;
}
