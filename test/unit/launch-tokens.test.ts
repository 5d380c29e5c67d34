import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLaunchToken, LAUNCH_TOKEN_MAX_AGE_MS, verifyLaunchToken, type LaunchRefusal } from '../../src/core/launch-tokens.js';

const SECRET = 'launch-secret-0123456789abcdef';
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

const refusal = (fn: () => unknown): LaunchRefusal | 'accepted' => {
  try {
    fn();
    return 'accepted';
  } catch (error) {
    return (error as { reason: LaunchRefusal }).reason;
  }
};

describe('launch tokens', () => {
  it('carry the role, the account (normalised) or the admin, and the panel, for at most 60 seconds', () => {
    const { token } = createLaunchToken(
      SECRET,
      { role: 'customer', account: 'Alice', domain: 'Bücher.Example', panel: 'cpanel' },
      { now: NOW },
    );
    expect(verifyLaunchToken(SECRET, token, NOW + 59_999)).toMatchObject({
      role: 'customer',
      account: 'alice',
      domain: 'xn--bcher-kva.example',
      panel: 'cpanel',
      issuedAt: NOW,
      expiresAt: NOW + LAUNCH_TOKEN_MAX_AGE_MS,
    });
    const admin = createLaunchToken(SECRET, { role: 'admin', admin: 'root', panel: 'whm' }, { now: NOW, maxAgeMs: 3_600_000 });
    expect(admin.claims.expiresAt - admin.claims.issuedAt).toBe(LAUNCH_TOKEN_MAX_AGE_MS);
    expect(verifyLaunchToken(SECRET, admin.token, NOW)).toMatchObject({ role: 'admin', admin: 'root' });
  });

  it('each get their own nonce, for the single-use check', () => {
    const request = { role: 'customer', account: 'alice', panel: 'plesk' } as const;
    const nonces = new Set(Array.from({ length: 50 }, () => createLaunchToken(SECRET, request, { now: NOW }).claims.nonce));
    expect(nonces.size).toBe(50);
  });

  it('are refused when expired, from the future, signed with another secret, tampered with or not tokens', () => {
    const { token } = createLaunchToken(SECRET, { role: 'customer', account: 'alice', panel: 'cpanel' }, { now: NOW });
    const [claims, signature] = token.split('.') as [string, string];
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(claims, 'base64url').toString()), role: 'admin', admin: 'alice' }),
    ).toString('base64url');
    expect(refusal(() => verifyLaunchToken(SECRET, token, NOW + LAUNCH_TOKEN_MAX_AGE_MS))).toBe('expired');
    expect(refusal(() => verifyLaunchToken(SECRET, token, NOW - 60_000))).toBe('not_yet_valid');
    expect(refusal(() => verifyLaunchToken('another-secret-0123456789abcdef', token, NOW))).toBe('bad_signature');
    expect(refusal(() => verifyLaunchToken(SECRET, `${forged}.${signature}`, NOW))).toBe('bad_signature');
    // Another last character (the nonce is random: the signature may already end in A).
    const altered = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'E' : 'A'}`;
    expect(refusal(() => verifyLaunchToken(SECRET, `${claims}.${altered}`, NOW))).toBe('bad_signature');
    for (const garbage of ['', 'abc', `${claims}.`, `.${signature}`, `${claims}.${signature}.x`]) {
      expect(
        refusal(() => verifyLaunchToken(SECRET, garbage, NOW)),
        garbage,
      ).toBe('malformed');
    }
  });

  it('refuse a validly signed token whose claims are not a launch, or claim a longer life', () => {
    // Signed as the format says, as a buggy panel integration might: the signature alone is not enough.
    const signed = (claims: object) => {
      const encoded = Buffer.from(JSON.stringify(claims)).toString('base64url');
      return `${encoded}.${createHmac('sha256', SECRET).update(`wpp-launch\u0000${encoded}`).digest('base64url')}`;
    };
    const base = { role: 'customer', account: 'alice', panel: 'cpanel', nonce: 'n'.repeat(22), issuedAt: NOW, expiresAt: NOW + 1000 };
    expect(refusal(() => verifyLaunchToken(SECRET, signed(base), NOW))).toBe('accepted');
    expect(refusal(() => verifyLaunchToken(SECRET, signed({ ...base, role: 'root' }), NOW))).toBe('malformed');
    expect(refusal(() => verifyLaunchToken(SECRET, signed({ ...base, account: 'not an account!' }), NOW))).toBe('malformed');
    expect(refusal(() => verifyLaunchToken(SECRET, signed({ ...base, extra: true }), NOW))).toBe('malformed');
    expect(refusal(() => verifyLaunchToken(SECRET, signed({ ...base, expiresAt: NOW + 3_600_000 }), NOW))).toBe('malformed');
    expect(() => createLaunchToken(SECRET, { role: 'customer', account: 'not an account!', panel: 'cpanel' }, { now: NOW })).toThrow(
      /account may only contain/,
    );
  });
});
