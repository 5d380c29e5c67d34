/**
 * The forms as a customer and an admin meet them in a real browser: saving says so and cannot
 * be sent twice, a form sent back opens on an error summary that links to each field, the
 * rules editor's frame takes its content's height at 390 px, and the admin menu keeps one row
 * at 1280 px. Screenshots (with axe-core's audit) of each page changed.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { admin, customer, launchUrl, screenshots } from '../helpers/pages.js';
import { protectedWebsite, withDemoPlugin, withPlugin } from '../helpers/plugin.js';

const DOMAIN = 'forms.example';

/* eslint-disable @typescript-eslint/no-explicit-any -- evaluated in the browser: the DOM's types are not in this project's compile */
const activeElementId = (page: Page) => page.evaluate(() => (globalThis as any).document.activeElement?.id ?? '');
/* eslint-enable @typescript-eslint/no-explicit-any */

describe('forms', () => {
  it('saving says “Saving…” with the button disabled, and a second click sends nothing more', { timeout: 120_000 }, async () => {
    await withPlugin(async (plugin, sb) => {
      await protectedWebsite(plugin, sb, 'fay', DOMAIN);
      await withBrowser(async (context) => {
        const page = await context.newPage();
        await page.setViewportSize({ width: 1280, height: 900 });
        await page.goto(launchUrl(plugin, customer('fay'), { next: `/panel/domains/${DOMAIN}` }));
        const posts: string[] = [];
        page.on('request', (request) => {
          if (request.method() === 'POST') posts.push(new URL(request.url()).pathname);
        });
        await page.getByLabel('People', { exact: true }).selectOption('captcha');
        // While a form is sent the browser runs no script for the test (each would wait for the next
        // page): a recorder in the page writes down what the form shows as it changes, in the
        // tab's sessionStorage, which the next page still has; once it sees the button disabled it
        // tries to send the form again, as a script or an Enter key would.
        await page.evaluate(() => {
          /* eslint-disable @typescript-eslint/no-explicit-any */
          const g = globalThis as any;
          const form = g.document.querySelector('form.settings');
          const button = form.querySelector('button[type=submit]');
          let retried = false;
          const record = () => {
            const status = form.querySelector('.form-progress');
            const seen = JSON.parse(g.sessionStorage.getItem('seen') ?? '[]');
            seen.push({ text: status?.textContent ?? null, live: status?.getAttribute('aria-live') ?? null, disabled: button.disabled });
            g.sessionStorage.setItem('seen', JSON.stringify(seen));
            if (button.disabled && !retried) {
              retried = true;
              form.requestSubmit();
            }
          };
          new g.MutationObserver(record).observe(form, { subtree: true, childList: true, characterData: true, attributes: true });
          /* eslint-enable @typescript-eslint/no-explicit-any */
        });
        // A slow provider: the save takes a few seconds (its read, then its update).
        await sb.control('POST', '/_sandbox/faults', { mode: 'slow', delayMs: 1500 });
        const save = page.getByRole('button', { name: 'Save settings' });
        await save.scrollIntoViewIfNeeded();
        const box = await save.boundingBox();
        if (!box) throw new Error('no Save settings button on the page');
        // The mouse itself, twice (a locator's click would wait for the navigation to finish).
        await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
        await page.waitForURL(/done=saved/, { timeout: 20_000 });
        await sb.control('POST', '/_sandbox/faults', { mode: 'none' });
        expect(await page.getByRole('status').first().textContent()).toContain('Settings saved');
        expect(posts).toEqual([`/panel/domains/${DOMAIN}/settings`]);
        const seen = JSON.parse(
          (await page.evaluate(() =>
            (globalThis as unknown as { sessionStorage: { getItem(k: string): string | null } }).sessionStorage.getItem('seen'),
          )) ?? '[]',
        );
        expect(seen).toContainEqual({ text: 'Saving…', live: 'polite', disabled: true });
        const website = await sb.control<{ settings: { rules: Record<string, string> } }>('GET', `/v1.0/website?domain=${DOMAIN}`);
        expect(website.settings.rules.humans).toBe('captcha');
        await screenshots(page, 'forms-domain');
      });
    });
  });

  it('works the same without the script: the form is sent and the summary comes first', { timeout: 120_000 }, async () => {
    await withPlugin(async (plugin, sb) => {
      await protectedWebsite(plugin, sb, 'gus', DOMAIN);
      await withBrowser(async (context) => {
        const page = await context.newPage();
        await page.route('**/assets/forms.js', (route) => route.abort());
        await page.goto(launchUrl(plugin, customer('gus'), { next: `/panel/domains/${DOMAIN}` }));
        await page.getByLabel('Your server’s IPv4 addresses').fill('999.1.2.3');
        await page.getByRole('button', { name: 'Save settings' }).click();
        await page.locator('#error-summary').waitFor();
        // First in reading order: the first thing in the page's main part.
        const first = await page.locator('main > *').first().getAttribute('id');
        expect(first).toBe('error-summary');
        await page.getByLabel('Your server’s IPv4 addresses').fill('192.0.2.44');
        await page.getByRole('button', { name: 'Save settings' }).click();
        await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Settings saved');
      });
    });
  });

  it('opens a form sent back on its error summary: focused, a link to each field, the fields marked', { timeout: 120_000 }, async () => {
    await withPlugin(async (plugin, sb) => {
      await protectedWebsite(plugin, sb, 'hal', DOMAIN);
      await withBrowser(async (context) => {
        const page = await context.newPage();
        await page.setViewportSize({ width: 1280, height: 900 });
        await page.goto(launchUrl(plugin, customer('hal'), { next: `/panel/domains/${DOMAIN}` }));
        await page.getByLabel('Your server’s IPv4 addresses').fill('192.0.2.5, 999.1.2.3');
        await page.getByLabel('Subdomains', { exact: true }).fill('bad_label');
        await page.getByRole('button', { name: 'Save settings' }).click();

        const summary = page.locator('#error-summary');
        await summary.waitFor();
        await expect.poll(() => activeElementId(page)).toBe('error-summary');
        expect(await summary.getAttribute('tabindex')).toBe('-1');
        const links = summary.getByRole('link');
        expect(await links.allTextContents()).toEqual([
          'Subdomains: “bad_label” is not a subdomain (like www or shop)',
          'Your server’s IPv4 addresses: “999.1.2.3” is not an IPv4 address',
        ]);
        expect(await links.nth(1).getAttribute('href')).toBe('#ipv4');
        const ipv4 = page.locator('#ipv4');
        expect(await ipv4.getAttribute('aria-invalid')).toBe('true');
        expect((await ipv4.getAttribute('aria-describedby'))?.split(' ')).toContain('ipv4-problem');
        expect(await page.locator('#ipv4-problem').textContent()).toBe('“999.1.2.3” is not an IPv4 address');
        await links.nth(1).click();
        await expect.poll(() => activeElementId(page)).toBe('ipv4');
        await screenshots(page, 'forms-domain-errors');

        // The admin's Settings: the same summary, the fields named as their labels.
        await page.goto(launchUrl(plugin, admin(), { next: '/admin/settings' }));
        await page.getByLabel('Scope').selectOption('global');
        await page.getByLabel('Warning at (%)').fill('150');
        await page.getByRole('button', { name: 'Save limits' }).click();
        await summary.waitFor();
        await expect.poll(() => activeElementId(page)).toBe('error-summary');
        const adminLinks = await summary.getByRole('link').allTextContents();
        expect(adminLinks).toEqual(['Warning at (%): 150 is out of range: give 1 to 100, or none to clear']);
        expect(await summary.getByRole('link').getAttribute('href')).toBe('#limit-warning-percent');
        const warning = page.locator('#limit-warning-percent');
        expect(await warning.getAttribute('aria-invalid')).toBe('true');
        expect(await warning.getAttribute('aria-describedby')).toBe('limit-warning-percent-hint limit-warning-percent-problem');
        await screenshots(page, 'forms-admin-settings-errors');

        await page.getByLabel('Plan name').fill('gold');
        await page.getByLabel('Provider settings (JSON)').fill('{"rules":{"humans":"maybe"}}');
        await page.getByRole('button', { name: 'Save plan' }).click();
        await summary.waitFor();
        expect((await summary.getByRole('link').allTextContents())[0]).toMatch(
          /^Provider settings \(JSON\): Who may visit: People \(rules\.humans\): /,
        );
      });
    });
  });

  it('sizes the rules editor frame to its content at 390 px: nothing clipped, no scrollbar inside', { timeout: 120_000 }, async () => {
    await withPlugin(async (plugin, sb) => {
      await protectedWebsite(plugin, sb, 'ida', DOMAIN);
      await withBrowser(async (context) => {
        const page = await context.newPage();
        await page.setViewportSize({ width: 390, height: 800 });
        await page.goto(launchUrl(plugin, customer('ida'), { next: `/panel/domains/${DOMAIN}/rules` }));
        const frameElement = page.locator('#rules-editor');
        await page.locator('#rules-editor.sized').waitFor({ timeout: 15_000 });
        const frame = await (await frameElement.elementHandle())?.contentFrame();
        if (!frame) throw new Error('the rules editor frame did not load');
        await expect.poll(() => frame.getByLabel('People', { exact: true }).count()).toBe(1);
        /* eslint-disable @typescript-eslint/no-explicit-any */
        const inside = await frame.evaluate(() => {
          const root = (globalThis as any).document.documentElement;
          return {
            scrollHeight: root.scrollHeight,
            clientHeight: root.clientHeight,
            scrollWidth: root.scrollWidth,
            clientWidth: root.clientWidth,
          };
        });
        const outside = await page.evaluate(() => {
          const root = (globalThis as any).document.documentElement;
          return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth };
        });
        /* eslint-enable @typescript-eslint/no-explicit-any */
        const box = await frameElement.boundingBox();
        // The frame is as tall as its content (no inner vertical scrollbar) and its content as wide as the frame.
        expect(inside.scrollHeight).toBeLessThanOrEqual(inside.clientHeight);
        expect(inside.scrollWidth).toBeLessThanOrEqual(inside.clientWidth);
        expect(Math.abs((box?.height ?? 0) - inside.scrollHeight)).toBeLessThanOrEqual(2);
        // The page itself does not scroll sideways.
        expect(outside.scrollWidth).toBeLessThanOrEqual(outside.clientWidth);
        // The editor names the settings as the panel's form does.
        expect(await frame.getByLabel('Send visitors to your server over HTTPS').count()).toBe(1);
        expect(await frame.getByLabel('WordPress', { exact: true }).count()).toBe(1);
        await screenshots(page, 'forms-rules');
      });
    });
  });

  it(
    'keeps the admin menu, Demo panel included, in one row at 1280 px in English, German and Spanish, and inside the screen at 390 px; the demo forms have the error summary too',
    { timeout: 120_000 },
    async () => {
      await withDemoPlugin(async (plugin) => {
        await withBrowser(async (context) => {
          const page = await context.newPage();
          await page.setViewportSize({ width: 1280, height: 900 });
          await page.goto(launchUrl(plugin, admin(), { next: '/admin' }));
          const items = page.locator('header.topbar nav a');
          expect(await items.allTextContents()).toContain('Demo panel');
          const rows = async () => {
            const tops = new Set<number>();
            for (const box of await Promise.all((await items.all()).map((item) => item.boundingBox())))
              if (box) tops.add(Math.round(box.y));
            return tops.size;
          };
          expect(await rows()).toBe(1);
          // The brand, the menu and the sign-out share that row: the bar is one line high.
          const bar = await page.locator('header.topbar').boundingBox();
          expect(bar?.height ?? 0).toBeLessThan(60);
          await screenshots(page, 'forms-admin-menu');
          // The longer words of German and Spanish keep the same row.
          for (const locale of ['de', 'es']) {
            await page.goto(launchUrl(plugin, { ...admin(), locale }, { next: '/admin' }));
            expect(await rows(), locale).toBe(1);
            expect((await page.locator('header.topbar').boundingBox())?.height ?? 0, locale).toBeLessThan(60);
          }
          await page.goto(launchUrl(plugin, admin(), { next: '/admin' }));

          await page.setViewportSize({ width: 390, height: 800 });
          /* eslint-disable @typescript-eslint/no-explicit-any */
          const widths = await page.evaluate(() => {
            const doc = (globalThis as any).document;
            const right = Math.max(
              ...[...doc.querySelectorAll('header.topbar a, header.topbar button')].map((e: any) => e.getBoundingClientRect().right),
            );
            return { scrollWidth: doc.documentElement.scrollWidth, right };
          });
          /* eslint-enable @typescript-eslint/no-explicit-any */
          expect(widths.scrollWidth).toBeLessThanOrEqual(390);
          expect(widths.right).toBeLessThanOrEqual(390);

          // The demo panel's forms: a refused one opens on the same summary.
          await page.setViewportSize({ width: 1280, height: 900 });
          await page.goto(`${plugin.url}/admin/demo`);
          await page.locator('#demo-domain-account').fill('dora');
          await page.locator('#demo-domain').fill('not a domain');
          await page.getByRole('button', { name: 'Add domain' }).click();
          const summary = page.locator('#error-summary');
          await summary.waitFor();
          await expect.poll(() => activeElementId(page)).toBe('error-summary');
          expect(await summary.getByRole('link').allTextContents()).toEqual(['Domain: "not a domain" is not a valid domain name']);
          expect(await summary.getByRole('link').getAttribute('href')).toBe('#demo-domain');
          expect(await page.locator('#demo-domain').getAttribute('aria-invalid')).toBe('true');
          expect(await page.locator('#demo-domain').getAttribute('aria-describedby')).toBe('demo-domain-problem');
          await screenshots(page, 'forms-demo-errors');
        });
      });
    },
  );
});
