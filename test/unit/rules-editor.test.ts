import { describe, expect, it } from 'vitest';
import { rulesEditorUrl } from '../../src/config.js';
import { framingAllowed } from '../../src/web/pages/rules-editor.js';

const PAGE = 'https://panel.host.example';
const EDITOR = 'https://dash.provider.example';

describe('rulesEditorUrl', () => {
  it('fills the template, URL-encoding every value', () => {
    expect(
      rulesEditorUrl('https://dash.provider.example/{lang}/website/{domain}/edit?api-key={api_key}', {
        domain: 'shop.example',
        lang: 'en',
        apiKey: 'a+b/c&d',
      }),
    ).toBe('https://dash.provider.example/en/website/shop.example/edit?api-key=a%2Bb%2Fc%26d');
  });
});

describe('framingAllowed', () => {
  const headers = (entries: Record<string, string>) => new Headers(entries);
  it('allows a page without framing headers or with frame-ancestors *', () => {
    expect(framingAllowed(headers({}), PAGE, EDITOR)).toBe(true);
    expect(framingAllowed(headers({ 'content-security-policy': "default-src 'none'; frame-ancestors *" }), PAGE, EDITOR)).toBe(true);
    expect(framingAllowed(headers({ 'content-security-policy': `frame-ancestors ${PAGE}` }), PAGE, EDITOR)).toBe(true);
  });
  it('sees a refusal in X-Frame-Options or frame-ancestors', () => {
    expect(framingAllowed(headers({ 'x-frame-options': 'DENY' }), PAGE, EDITOR)).toBe(false);
    expect(framingAllowed(headers({ 'x-frame-options': 'SAMEORIGIN' }), PAGE, EDITOR)).toBe(false);
    expect(framingAllowed(headers({ 'content-security-policy': "frame-ancestors 'self'" }), PAGE, EDITOR)).toBe(false);
    expect(framingAllowed(headers({ 'content-security-policy': "frame-ancestors 'none'" }), PAGE, EDITOR)).toBe(false);
  });
});
