import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLaunchToken, verifyLaunchToken } from '../../src/core/launch-tokens.js';
import { normalizeLocaleTag, resolveLocale } from '../../src/core/locale.js';

const SECRET = 'launch-secret-0123456789abcdef';
const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);

/** A token with raw claims, signed as launch-tokens.ts signs: what a panel's own code could send. */
function signedWith(claims: Record<string, unknown>): string {
  const encoded = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${encoded}.${createHmac('sha256', SECRET).update(`wpp-launch\u0000${encoded}`).digest('base64url')}`;
}

describe('the language of the pages', () => {
  it('resolves a panel’s tag to a language the plugin has: its language subtag, else English', () => {
    expect(resolveLocale('de')).toBe('de');
    expect(resolveLocale('de-AT')).toBe('de');
    expect(resolveLocale('DE_at.UTF-8')).toBe('de');
    expect(resolveLocale('es_ES@euro')).toBe('es');
    expect(resolveLocale('es-419')).toBe('es');
    expect(resolveLocale('en-US')).toBe('en');
    expect(resolveLocale('fr')).toBe('en');
    expect(resolveLocale('deu')).toBe('en');
    expect(resolveLocale('')).toBe('en');
    expect(resolveLocale(undefined)).toBe('en');
    expect(resolveLocale('<script>')).toBe('en');
  });

  it('keeps a BCP 47-like tag of at most 35 characters, and nothing else', () => {
    expect(normalizeLocaleTag(' pt_BR.UTF-8 ')).toBe('pt-BR');
    expect(normalizeLocaleTag('zh-Hant-TW')).toBe('zh-Hant-TW');
    expect(normalizeLocaleTag('de-AT-x-private1')).toBe('de-AT-x-private1');
    expect(normalizeLocaleTag('en-' + 'a'.repeat(40))).toBeUndefined();
    expect(normalizeLocaleTag('d')).toBeUndefined();
    expect(normalizeLocaleTag('de AT')).toBeUndefined();
    expect(normalizeLocaleTag('../../etc/passwd')).toBeUndefined();
    expect(normalizeLocaleTag(42)).toBeUndefined();
  });

  it('travels in the launch token as an optional claim; one that is not a tag is dropped, never a refusal', () => {
    const { token } = createLaunchToken(SECRET, { role: 'customer', account: 'alice', panel: 'cpanel', locale: 'de_AT' }, { now: NOW });
    expect(verifyLaunchToken(SECRET, token, NOW)).toMatchObject({ role: 'customer', account: 'alice', locale: 'de-AT' });
    const none = createLaunchToken(SECRET, { role: 'admin', admin: 'root', panel: 'whm' }, { now: NOW });
    expect(verifyLaunchToken(SECRET, none.token, NOW).locale).toBeUndefined();

    const base = { role: 'admin', admin: 'root', panel: 'plesk', nonce: 'n'.repeat(22), issuedAt: NOW, expiresAt: NOW + 60_000 };
    for (const locale of ['x'.repeat(200), 'de<script>', 42, { lang: 'de' }, null]) {
      const claims = verifyLaunchToken(SECRET, signedWith({ ...base, locale }), NOW);
      expect(claims.role, JSON.stringify(locale)).toBe('admin');
      expect(claims.locale, JSON.stringify(locale)).toBeUndefined();
    }
    expect(verifyLaunchToken(SECRET, signedWith({ ...base, locale: 'es-MX' }), NOW).locale).toBe('es-MX');
  });
});
