import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  fieldOfProviderPath,
  formOf,
  checkCertificateUpload,
  parseSettingsForm,
  settingsFieldLabel,
  problemsFromProviderError,
  settingsViewOf,
  type SettingsView,
  type UploadedFile,
} from '../../src/core/website-settings.js';
import { ProviderError, websiteSchema } from '../../src/provider/index.js';
import { createTranslations, loadCatalogs } from '../../src/core/i18n.js';
import { paths } from '../../src/paths.js';

/** The messages in English, as the form's tests read them (the other languages: test/integration/i18n-domain.test.ts). */
const t = createTranslations(loadCatalogs(paths.locales)).en;

const cert = (name: string) => readFileSync(join('test/fixtures/certs', name));
const NOW = Date.parse('2026-12-01T00:00:00Z');

const current: SettingsView = settingsViewOf(
  websiteSchema.parse({
    domain: 'secure.example',
    subdomain: ['www'],
    ip: ['203.0.113.10'],
    status: 'online',
    certificate_status: 'issued',
    settings: {
      rules: { humans: 'grant', content_scrapers: 'deny', emulated_humans: 'captcha', search_engines: 'grant' },
      rulesets: { wordpress: true },
      loadbalancer: { force_https: true, certs_issuer: 'acme' },
    },
  }),
);

/** The form exactly as the page shows it for `current`, as the browser would post it. */
function unchangedBody(): Record<string, string> {
  const form = formOf(current);
  const body: Record<string, string> = {
    _csrf: 'token',
    subdomains: form.subdomains,
    ipv4: form.ipv4,
    ipv6: form.ipv6,
    certs_issuer: form.certsIssuer,
  };
  for (const [category, policy] of Object.entries(form.rules)) body[`rule_${category}`] = policy;
  for (const [name, on] of Object.entries(form.rulesets)) if (on) body[`ruleset_${name}`] = 'on';
  for (const [flag, on] of Object.entries(form.loadbalancer)) if (on) body[`lb_${flag}`] = 'on';
  return body;
}

const parse = (body: Record<string, string>, files: UploadedFile[] = []) =>
  parseSettingsForm(body, files, current, 'secure.example', NOW, t);

describe('parseSettingsForm', () => {
  it('sends nothing when nothing changed', () => {
    expect(parse(unchangedBody())).toEqual({ ok: true, patch: {}, changed: [] });
  });

  it('sends only the fields that changed', () => {
    const body: Record<string, string> = { ...unchangedBody(), rule_humans: 'captcha', ruleset_drupal: 'on', subdomains: 'www, shop' };
    delete body.lb_force_https;
    const parsed = parse(body);
    expect(parsed).toEqual({
      ok: true,
      patch: {
        settings: { rules: { humans: 'captcha' }, rulesets: { drupal: true }, loadbalancer: { force_https: false } },
        subdomain: ['www', 'shop'],
      },
      changed: ['rule_humans', 'ruleset_drupal', 'lb_force_https', 'subdomains'],
    });
  });

  it('reads origin lists one per line or comma separated, IPv4 and IPv6 apart', () => {
    const parsed = parse({ ...unchangedBody(), ipv4: '203.0.113.10\n198.51.100.7, 198.51.100.7', ipv6: '2001:DB8::1' });
    expect(parsed).toMatchObject({ ok: true, patch: { ip: ['203.0.113.10', '198.51.100.7'], ipv6: ['2001:db8::1'] } });
  });

  it('keys every problem by its form field and sends nothing', () => {
    const parsed = parse({
      ...unchangedBody(),
      rule_humans: 'maybe',
      ipv4: '203.0.113.10, 300.1.1.1',
      ipv6: '10.0.0.1',
      subdomains: 'w w w!',
    });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems.rule_humans).toBe('choose “Let in”, “Ask for a captcha” or “Turn away”');
    expect(parsed.problems.ipv4).toContain('300.1.1.1');
    expect(parsed.problems.ipv6).toContain('10.0.0.1');
    expect(parsed.problems.subdomains).toContain('is not a subdomain');
  });

  it('needs at least one origin address', () => {
    const parsed = parse({ ...unchangedBody(), ipv4: ' ', ipv6: '' });
    expect(parsed).toMatchObject({ ok: false, problems: { ipv4: expect.stringContaining('at least one address') } });
  });

  it('refuses an unknown certificate issuer', () => {
    expect(parse({ ...unchangedBody(), certs_issuer: 'letsencrypt' })).toMatchObject({
      ok: false,
      problems: { certs_issuer: expect.any(String) },
    });
  });
});

describe('custom certificates', () => {
  const files = (crt: Buffer | null, key: Buffer | null): UploadedFile[] => [
    ...(crt ? [{ fieldname: 'certificate', buffer: crt }] : []),
    ...(key ? [{ fieldname: 'private_key', buffer: key }] : []),
  ];

  it('sends a matching PEM pair with the custom issuer', () => {
    const parsed = parse({ ...unchangedBody(), certs_issuer: 'custom' }, files(cert('secure.example.crt'), cert('secure.example.key')));
    expect(parsed).toMatchObject({
      ok: true,
      patch: {
        settings: { loadbalancer: { certs_issuer: 'custom' } },
        certificate: { public: expect.stringContaining('BEGIN CERTIFICATE') },
      },
      changed: ['certs_issuer', 'certificate'],
    });
  });

  it('needs both files when switching to custom', () => {
    expect(parse({ ...unchangedBody(), certs_issuer: 'custom' })).toMatchObject({
      ok: false,
      problems: { certificate: expect.any(String) },
    });
    expect(parse({ ...unchangedBody(), certs_issuer: 'custom' }, files(cert('secure.example.crt'), null))).toMatchObject({
      ok: false,
      problems: { private_key: expect.stringContaining('private key') },
    });
  });

  it('refuses a key that does not belong to the certificate', () => {
    const parsed = parse({ ...unchangedBody(), certs_issuer: 'custom' }, files(cert('secure.example.crt'), cert('other.key')));
    expect(parsed).toEqual({ ok: false, problems: { private_key: 'This key does not belong to the uploaded certificate' } });
  });

  it('refuses files that are not PEM', () => {
    const parsed = parse({ ...unchangedBody(), certs_issuer: 'custom' }, files(Buffer.from('hello'), Buffer.from('world')));
    expect(parsed).toMatchObject({
      ok: false,
      problems: {
        certificate: expect.stringContaining('not a PEM certificate'),
        private_key: expect.stringContaining('not a PEM private key'),
      },
    });
  });

  it('refuses a certificate for another domain, and an upload with the automatic issuer', () => {
    const other = parseSettingsForm(
      { ...unchangedBody(), certs_issuer: 'custom' },
      files(cert('secure.example.crt'), cert('secure.example.key')),
      current,
      'shop.example',
      NOW,
      t,
    );
    expect(other).toMatchObject({ ok: false, problems: { certificate: 'This certificate is not for shop.example' } });
    const acme = parse(unchangedBody(), files(cert('secure.example.crt'), cert('secure.example.key')));
    expect(acme).toMatchObject({ ok: false, problems: { certificate: expect.stringContaining('My own certificate') } });
  });
});

describe('provider refusals', () => {
  it('maps detail paths back to form fields', () => {
    expect(fieldOfProviderPath('settings.rules.humans')).toBe('rule_humans');
    expect(fieldOfProviderPath('settings.rulesets.wordpress')).toBe('ruleset_wordpress');
    expect(fieldOfProviderPath('settings.loadbalancer.force_https')).toBe('lb_force_https');
    expect(fieldOfProviderPath('settings.loadbalancer.certs_issuer')).toBe('certs_issuer');
    expect(fieldOfProviderPath('subdomain.1')).toBe('subdomains');
    expect(fieldOfProviderPath('ip.0')).toBe('ipv4');
    expect(fieldOfProviderPath('ipv6')).toBe('ipv6');
    expect(fieldOfProviderPath('certificate')).toBe('certificate');
    expect(fieldOfProviderPath('')).toBe('form');
  });

  it('turns a validation refusal into field problems, and nothing else', () => {
    const refusal = new ProviderError({
      code: 'PROVIDER_VALIDATION',
      message: 'PUT /v1.0/website/{domain} failed with HTTP 422',
      method: 'PUT',
      path: '/v1.0/website/secure.example',
      attempts: 1,
      sent: true,
      details: [{ path: 'ip.0', message: 'address is not routable' }],
    });
    expect(problemsFromProviderError(refusal, t)).toEqual({ ipv4: 'The protection service refused this: address is not routable' });
    const outage = new ProviderError({
      code: 'PROVIDER_UNAVAILABLE',
      message: 'down',
      method: 'PUT',
      path: refusal.path,
      attempts: 2,
      sent: true,
    });
    expect(problemsFromProviderError(outage, t)).toBeNull();
  });
});

describe('the messages in the user’s language', () => {
  const translations = createTranslations(loadCatalogs(paths.locales), { fallbackToEnglish: false });
  const files = (crt: Buffer | null, key: Buffer | null): UploadedFile[] => [
    ...(crt ? [{ fieldname: 'certificate', buffer: crt }] : []),
    ...(key ? [{ fieldname: 'private_key', buffer: key }] : []),
  ];

  it('words every certificate problem, a provider refusal and the choices in German and Spanish, naming settings by their labels', () => {
    const de = translations.de;
    expect(checkCertificateUpload(files(cert('secure.example.crt'), null), 'secure.example', NOW, de)).toEqual({
      problems: { private_key: 'Laden Sie auch den privaten Schlüssel hoch (eine .key- oder .pem-Datei)' },
    });
    expect(checkCertificateUpload(files(cert('secure.example.crt'), cert('other.key')), 'secure.example', NOW, de)).toEqual({
      problems: { private_key: 'Dieser Schlüssel gehört nicht zum hochgeladenen Zertifikat' },
    });
    expect(checkCertificateUpload(files(cert('secure.example.crt'), cert('secure.example.key')), 'shop.example', NOW, de)).toEqual({
      problems: { certificate: 'Dieses Zertifikat gilt nicht für shop.example' },
    });
    expect(checkCertificateUpload(files(Buffer.from('nope'), Buffer.from('nope')), 'secure.example', NOW, translations.es)).toEqual({
      problems: {
        certificate: 'Este archivo no es un certificado PEM (debería empezar por -----BEGIN CERTIFICATE-----)',
        private_key: 'Este archivo no es una clave privada PEM (debería empezar por -----BEGIN PRIVATE KEY-----)',
      },
    });
    const refused = parseSettingsForm(
      { ...unchangedBody(), rule_humans: 'maybe', certs_issuer: 'x' },
      [],
      current,
      'secure.example',
      NOW,
      de,
    );
    expect(refused).toEqual({
      ok: false,
      problems: {
        rule_humans: 'wählen Sie „Durchlassen“, „Captcha verlangen“ oder „Abweisen“',
        certs_issuer: 'wählen Sie „Automatisch (kostenloses Zertifikat von Let’s Encrypt)“ oder „Mein eigenes Zertifikat“',
      },
    });
    expect(settingsFieldLabel('rule_humans', de)).toBe('Menschen');
    expect(settingsFieldLabel('lb_force_https', translations.es)).toBe('Usar siempre HTTPS');
    expect(settingsFieldLabel('ruleset_wordpress', de)).toBe('WordPress');
    expect(settingsFieldLabel('ipv4', de)).toBe('IPv4-Adressen Ihres Servers');
    expect(settingsFieldLabel('form', de)).toBeUndefined();
  });
});
