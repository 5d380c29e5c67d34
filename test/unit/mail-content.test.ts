/**
 * The mails' words (core/mail-content.ts): every kind renders in every language from that
 * language's own catalog (no key missing, none falling back to English), text and HTML say the
 * same, and what the HTML part shows is escaped.
 */
import { describe, expect, it } from 'vitest';
import { createFormat } from '../../src/core/format.js';
import { createTranslations, loadCatalogs } from '../../src/core/i18n.js';
import { SUPPORTED_LOCALES } from '../../src/core/locale.js';
import { renderMail, type MailMessage } from '../../src/core/mail-content.js';
import { paths } from '../../src/paths.js';

const at = Date.parse('2026-11-20T09:00:00Z');
const periodEnd = Date.parse('2026-12-01T00:00:00Z');
const event = { account: 'alice', domain: 'shop.example', at, usage: 1200, limit: 1000, periodEnd };

const MESSAGES: Record<string, MailMessage> = {
  approaching: { kind: 'website', event: { ...event, kind: 'approaching', usage: 850, forecastAt: at + 3_600_000 } },
  approachingAccount: { kind: 'website', event: { ...event, kind: 'approaching', domain: null, forecastAt: null } },
  paused: { kind: 'website', event: { ...event, kind: 'paused', upgradeUrl: 'https://host.example/up?a=1&b=2' } },
  pausedContact: { kind: 'website', event: { ...event, kind: 'paused' } },
  resumed: { kind: 'website', event: { ...event, kind: 'resumed' } },
  protecting: { kind: 'website', event: { ...event, kind: 'protecting' } },
  // The reseller's pool as the customer's mail carries it (core/mail.ts): the share used, never the pool's hits and limit.
  poolApproaching: {
    kind: 'website',
    event: { ...event, kind: 'approaching', domain: null, usage: null, limit: null, pool: { percent: 85 } },
  },
  poolPaused: { kind: 'website', event: { ...event, kind: 'paused', usage: null, limit: null, pool: { percent: 105 } } },
  reseller: {
    kind: 'reseller_digest',
    reseller: 'rita',
    events: [
      { ...event, kind: 'paused' },
      { ...event, kind: 'approaching', forecastAt: null },
      { ...event, kind: 'approaching', domain: null, usage: 850_000, limit: 1_000_000, pool: { percent: 85 } },
      { ...event, kind: 'paused', usage: 1_050_000, limit: 1_000_000, pool: { percent: 105 } },
    ],
  },
  admin: {
    kind: 'admin_digest',
    digest: {
      since: at - 86_400_000,
      until: at,
      websitesInError: [{ domain: 'bad.example', account: 'bo', error: 'refused <script>alert(1)</script>' }],
      deadJobs: [{ id: 7, kind: 'panel.event', domain: 'bad.example', error: 'HTTP 422' }],
      pauses: [{ domain: 'shop.example', account: 'alice', at }],
      drift: [{ panel: 'cpanel', at, total: 3 }],
      failedRuns: [{ name: 'sync-stats', at, error: 'timeout' }],
      providerAnsweredAt: null,
    },
  },
};

describe('the mails', () => {
  const missing: string[] = [];
  const translations = createTranslations(loadCatalogs(paths.locales), {
    fallbackToEnglish: false,
    onMissingKey: (locale, key) => missing.push(`${locale}: ${key}`),
  });
  const render = (message: MailMessage, locale: (typeof SUPPORTED_LOCALES)[number], hostName?: string) =>
    renderMail(message, { t: translations[locale], format: createFormat({ locale }), hostName });

  it('render every kind in every language from its own catalog', () => {
    for (const locale of SUPPORTED_LOCALES)
      for (const [name, message] of Object.entries(MESSAGES)) {
        const mail = render(message, locale, 'Example Hosting');
        expect(mail.subject, `${locale} ${name}`).not.toBe('');
        expect(mail.text, `${locale} ${name}`).toContain('Example Hosting');
        expect(mail.html, `${locale} ${name}`).toContain(`<html lang="${locale}">`);
      }
    expect(missing).toEqual([]);
  });

  it("name the host in the reader's language when WPP_HOST_NAME gives none", () => {
    expect(render(MESSAGES.pausedContact as MailMessage, 'de').text).toContain('bitten Sie Ihren Hosting-Anbieter um ein höheres Limit');
    expect(render(MESSAGES.pausedContact as MailMessage, 'en').text).toContain('ask your hosting provider for a higher limit');
    expect(render(MESSAGES.pausedContact as MailMessage, 'es').text).toContain('Saludos cordiales,\nSu proveedor de alojamiento');
    expect(render(MESSAGES.pausedContact as MailMessage, 'en', 'Example Hosting').text).toContain('ask Example Hosting for a higher limit');
  });

  it('escape what the HTML part shows, and keep the text part plain', () => {
    const admin = render(MESSAGES.admin as MailMessage, 'en', 'Host & Co');
    expect(admin.html).not.toContain('<script>');
    expect(admin.html).toContain('refused &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(admin.html).toContain('Host &amp; Co');
    expect(admin.text).toContain('- bad.example (bo): refused <script>alert(1)</script>');
    const paused = render(MESSAGES.paused as MailMessage, 'en');
    expect(paused.html).toContain('<a href="https://host.example/up?a=1&amp;b=2">');
    expect(paused.text).toContain('https://host.example/up?a=1&b=2');
  });

  it("tell a customer of the reseller's pool by the share used, and the reseller by the pool's hits", () => {
    const customerWords = {
      en: ['85% of it is used this period.', 'with other websites Example Hosting hosts'],
      de: ['85 % davon sind in diesem Zeitraum verbraucht.', 'die Example Hosting hostet'],
      es: ['En este periodo se ha usado el 85 % de ella.', 'con otros sitios que aloja Example Hosting'],
    } as const;
    const resellerWords = {
      en: ['850,000 of 1,000,000 hits used this period', '(1,050,000 of 1,000,000 hits)'],
      de: ['850.000 von 1.000.000 Zugriffen in diesem Zeitraum', '(1.050.000 von 1.000.000 Zugriffen)'],
      es: ['850.000 de 1.000.000 accesos usados en este periodo', '(1.050.000 de 1.000.000 accesos)'],
    } as const;
    for (const locale of SUPPORTED_LOCALES) {
      const warning = render(MESSAGES.poolApproaching as MailMessage, locale, 'Example Hosting');
      for (const words of customerWords[locale]) expect(warning.text, locale).toContain(words);
      const paused = render(MESSAGES.poolPaused as MailMessage, locale, 'Example Hosting');
      expect(paused.text, locale).toContain(customerWords[locale][1]);
      // No date: the pool's period need not end with the account's (the event's periodEnd).
      expect(paused.text, locale).not.toMatch(/1 Dec|1\. Dez|1 dic/);
      const digest = render(MESSAGES.reseller as MailMessage, locale, 'Example Hosting').text;
      for (const words of resellerWords[locale]) expect(digest, locale).toContain(words);
    }
    expect(render(MESSAGES.poolPaused as MailMessage, 'en').text).toContain('with other websites your hosting provider hosts is used up');
  });
});
