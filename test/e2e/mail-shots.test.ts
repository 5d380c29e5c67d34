/**
 * Every e-mail as its reader sees it (issue 22, part 3): the mails a real SMTP server took
 * (test/helpers/smtp.ts) after a month of one small fleet, from the warning to the admin's
 * digest, each HTML part opened in the browser, audited by axe-core and screenshotted at 1280
 * and 390 px (`mail-<kind>-<width>.png`, beside `mail-<kind>.html`, in the screenshot folder:
 * TEST_SCREENSHOT_DIR, else test-results/screenshots).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { admin, customer, launchUrl, SCREENSHOT_DIR, screenshots } from '../helpers/pages.js';
import { createPageClient } from '../helpers/page-client.js';
import { withPlugin } from '../helpers/plugin.js';
import { startTestSmtp, type ReceivedMail } from '../helpers/smtp.js';
import { waitFor } from '../helpers/wait.js';

const DAY_MS = 86_400_000;

describe('the e-mails', () => {
  it('are screenshotted as they arrive: approaching, paused (English and German), resumed, protecting, the reseller and admin digests', async () => {
    const smtp = await startTestSmtp();
    let now = Date.parse('2026-11-20T09:00:00Z');
    try {
      await withPlugin(
        async (plugin, sb) => {
          await sb.control('POST', '/_sandbox/nxdomain', { domains: ['typo-shop.example'] });
          plugin.accounts.savePlan({ name: 'trial', settings: {}, subdomains: ['www'], monitorDays: 1 });
          await plugin.postEvents([
            { type: 'account.created', account: 'alice', email: 'alice@mail.example' },
            { type: 'domain.added', account: 'alice', domain: 'alice-shop.example' },
            { type: 'account.created', account: 'bob', email: 'bob@mail.example', plan: 'trial' },
            { type: 'domain.added', account: 'bob', domain: 'bob-blog.example' },
            { type: 'account.created', account: 'carla', email: 'carla@mail.example' },
            { type: 'domain.added', account: 'carla', domain: 'carla-reisen.example' },
            { type: 'domain.added', account: 'carla', domain: 'typo-shop.example' },
          ]);
          await plugin.idle();
          await waitFor(() => plugin.jobs.list({ state: 'dead', limit: 10 }).length === 1, 10_000, 'the refused domain');
          plugin.accounts.saveReseller({ name: 'rita', email: 'rita@reseller.example' });
          plugin.accounts.setAccountReseller('bob', 'rita');
          plugin.accounts.setAccountReseller('carla', 'rita');
          // Carla reads the pages in German: her mails are German.
          expect((await createPageClient(plugin.url).get(launchUrl(plugin, { ...customer('carla'), locale: 'de' }, { now }))).status).toBe(
            303,
          );

          // Bob's day of monitoring is over.
          now += DAY_MS + 60_000;
          expect(await plugin.switchMonitoring()).toMatchObject({ protected: 1 });
          // Two reads of the adaptive sync an hour apart: alice's rate gives the warning its forecast.
          plugin.stats.setLimits('global', '', { websiteHits: 1000, warningPercent: 80 });
          await sb.control('POST', '/_sandbox/websites/alice-shop.example/traffic', { hits: 400, blocked: 60 });
          await plugin.readDueStatistics();
          now += 3_600_000;
          await sb.control('POST', '/_sandbox/websites/alice-shop.example/traffic', { hits: 450, blocked: 60 });
          await sb.control('POST', '/_sandbox/websites/carla-reisen.example/traffic', { hits: 1250, blocked: 300 });
          await plugin.syncStatistics();
          await plugin.enforceLimits();
          // Carla's limit raised: protected again.
          plugin.stats.setLimits('website', 'carla-reisen.example', { websiteHits: 5000 });
          await plugin.enforceLimits();
          await plugin.idle();
          await smtp.waitForMails(4);
          expect(await plugin.sendMailDigests()).toEqual({ resellers: 1, admin: true });
          await plugin.idle();
          const mails = await smtp.waitForMails(6);

          const bySubject = (subject: string) => mails.find((mail) => mail.subject === subject) as ReceivedMail;
          const shots: [name: string, mail: ReceivedMail][] = [
            ['mail-approaching', bySubject('alice-shop.example is close to its hit limit')],
            ['mail-paused-de', bySubject('Webschutz von carla-reisen.example ist pausiert')],
            ['mail-resumed-de', bySubject('Webschutz von carla-reisen.example ist wieder aktiv')],
            ['mail-protecting', bySubject('bob-blog.example is now protected')],
            ['mail-reseller-digest', bySubject("Example Hosting: what happened to your customers' websites")],
            ['mail-admin-digest', bySubject('Example Hosting: daily web protection digest')],
          ];
          for (const [name, mail] of shots) expect(mail, name).toBeDefined();
          expect(shots[0]?.[1].text).toContain('At the current rate the limit will be reached on 21 Nov, 10:21 UTC.');
          expect(shots[5]?.[1].text).toContain('carla-reisen.example (carla), 21 Nov 2026, 10:01 UTC');
          expect(shots.map(([, mail]) => mail.to[0])).toEqual([
            'alice@mail.example',
            'carla@mail.example',
            'carla@mail.example',
            'bob@mail.example',
            'rita@reseller.example',
            'ops@host.example',
          ]);

          mkdirSync(SCREENSHOT_DIR, { recursive: true });
          await withBrowser(async (context) => {
            const page = await context.newPage();
            for (const [name, mail] of shots) {
              writeFileSync(join(SCREENSHOT_DIR, `${name}.html`), mail.html);
              writeFileSync(join(SCREENSHOT_DIR, `${name}.txt`), `Subject: ${mail.subject}\nTo: ${mail.to.join(', ')}\n\n${mail.text}`);
              await page.setContent(mail.html, { waitUntil: 'load' });
              await screenshots(page, name);
            }
            // Where the admin sets who gets what: the Settings page's E-mail section. The clock is
            // today's again, since the browser drops a session cookie whose expiry lies in the past.
            now = Date.now();
            await page.goto(launchUrl(plugin, admin(), { now, next: '/admin/settings' }));
            await expect.poll(() => page.locator('#mail h2').textContent()).toBe('E-mail');
            expect(await page.locator('#mail').textContent()).toContain(
              `E-mail goes through smtp://wpp-mailer:[redacted]@127.0.0.1:${smtp.port}`,
            );
            await screenshots(page, 'mail-admin-settings');
            await page.locator('#mail').screenshot({ path: join(SCREENSHOT_DIR, 'mail-admin-settings-section.png') });
          });
        },
        {
          now: () => now,
          env: {
            WPP_SMTP_URL: smtp.url,
            WPP_MAIL_FROM: 'protection@host.example',
            WPP_HOST_NAME: 'Example Hosting',
            WPP_ADMIN_EMAIL: 'ops@host.example',
            WPP_UPGRADE_URL: 'https://host.example/upgrade?account={account}&domain={domain}',
          },
        },
      );
    } finally {
      await smtp.close();
    }
  }, 90_000);
});
