/**
 * How panel things are named at the provider. Both mappings are pure and stable: the same
 * input always gives the same output, so a replayed event converges on the same records.
 */
import { createHash, createHmac } from 'node:crypto';

/**
 * The provider user id of a panel account: `<account>@<accountDomain>`, lower-case. Letters,
 * digits, `_` and `-` stay as they are, and so does `.` where e-mail allows it; any other
 * character becomes `+` and its hex code (`+` itself is `+2b`), so two accounts never share
 * an id. A local part over 64 characters is shortened and suffixed with a hash of the name.
 */
export function providerUserIdFor(account: string, accountDomain: string): string {
  const name = account.toLowerCase();
  let local = '';
  for (let i = 0; i < name.length; i++) {
    const char = name[i] as string;
    const dotAllowed = char === '.' && i > 0 && i < name.length - 1 && name[i + 1] !== '.';
    local += /[a-z0-9_-]/.test(char) || dotAllowed ? char : `+${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
  }
  if (local.length > 64) local = `${local.slice(0, 47)}-${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;
  return `${local}@${accountDomain}`;
}

/**
 * The provider user id for an account whose name another account had before (a cPanel rename
 * keeps the renamed account's provider user, and cPanel may give the freed name to a new
 * customer): `<local>+r<n>@<accountDomain>`. No account name maps to it, since the encoding
 * above always follows `+` with two hex digits and `r` is none.
 */
export function providerUserIdVariant(account: string, accountDomain: string, n: number): string {
  const [local = '', domain = accountDomain] = providerUserIdFor(account, accountDomain).split('@');
  const suffix = `+r${n}`;
  return `${local.slice(0, 64 - suffix.length)}${suffix}@${domain}`;
}

/**
 * The secret token in a website's callbackUrl, derived from the callback key (secrets.ts) so a
 * retried create sends the same URL without the plugin storing the token; only its hash is
 * stored, and a callback is found by that hash alone. So websites registered by earlier
 * releases (whose token came from the panel secret) keep their callbacks until registered again.
 */
export function callbackTokenFor(callbackKey: string, domain: string): string {
  return createHmac('sha256', callbackKey).update(`website-callback\u0000${domain}`).digest('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
