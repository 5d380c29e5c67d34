/**
 * The demo a newcomer clicks through, in a real browser, on a plugin whose provider is the
 * embedded sandbox (as `npm start` without configuration runs it): an admin creates an
 * account, adds a domain and sees it provisioned, sends traffic, runs a sync, sets a limit
 * on the Settings page and sees enforcement pause the website, then opens the customer's view.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { admin, launchUrl, screenshots } from '../helpers/pages.js';
import { withDemoPlugin } from '../helpers/plugin.js';

/** The demo table's row of a domain, as text. */
const rowOf = (page: Page, domain: string) => page.locator('table.list tr', { hasText: domain });

/** Reloads the demo panel until the domain's row says `text` (the flow runs in the background). */
async function waitForState(page: Page, domain: string, text: RegExp, timeout = 20_000) {
  await expect
    .poll(
      async () => {
        await page.goto(new URL('/admin/demo', page.url()).href);
        return (await rowOf(page, domain).textContent()) ?? '';
      },
      { timeout, interval: 250 },
    )
    .toMatch(text);
}

describe('the demo panel', () => {
  it('walks from a new account to a protected, counted, enforced domain and the customer view', { timeout: 120_000 }, async () => {
    await withDemoPlugin(async (plugin) => {
      expect(plugin.sandbox).toBeDefined();
      await withBrowser(async (context) => {
        const page = await context.newPage();
        await page.goto(launchUrl(plugin, admin('demo-admin')));
        await page.getByRole('link', { name: 'Demo panel' }).click();
        await expect.poll(() => page.url()).toMatch(/\/admin\/demo$/);

        await page.getByLabel('Account name').fill('Bad Name!');
        await page.getByRole('button', { name: 'Create account' }).click();
        await expect.poll(() => page.locator('.field.invalid .problem').first().textContent()).toContain('account may only contain');
        await page.getByLabel('Account name').fill('alice');
        await page.getByRole('button', { name: 'Create account' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toContain('The account was sent to the plugin');

        const addForm = page.locator('form[action="/admin/demo/domains"]');
        await addForm.getByLabel('Account').fill('alice');
        await addForm.getByLabel('Domain').fill('shop.example');
        await addForm.getByRole('button', { name: 'Add domain' }).click();
        await waitForState(page, 'shop.example', /waiting for DNS|protected/i);
        const dnsForm = page.locator('form[action="/admin/demo/dns-verified"]');
        await dnsForm.getByLabel('Domain').fill('shop.example');
        await dnsForm.getByRole('button', { name: 'Mark DNS verified' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toContain('DNS as verified');
        await waitForState(page, 'shop.example', /protected/i);

        const trafficForm = page.locator('form[action="/admin/demo/traffic"]');
        await trafficForm.getByLabel('Domain').fill('shop.example');
        await trafficForm.getByLabel('Hits').fill('2000000');
        await trafficForm.getByRole('button', { name: 'Send traffic' }).click();
        await expect.poll(() => trafficForm.locator('.problem').textContent()).toContain('hits must be at most 1,000,000');
        await trafficForm.getByLabel('Hits').fill('1500');
        await trafficForm.getByLabel('Blocked').fill('200');
        await trafficForm.getByRole('button', { name: 'Send traffic' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toContain('The sandbox counted the visits');
        await page.getByRole('button', { name: 'Run a sync now' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toContain('Statistics were read');
        expect(await rowOf(page, 'shop.example').textContent()).toContain('1,500');
        // The next step follows what was counted: no more "send traffic" once it was read.
        expect(await rowOf(page, 'shop.example').textContent()).toContain('Counted. Set a hit limit below its hits in Settings');

        await setLimitOnSettingsPage(page);
        await page.goto(new URL('/admin/demo', page.url()).href);
        await page.getByRole('button', { name: 'Run a sync now' }).click();
        await waitForState(page, 'shop.example', /paused by the hit limit/i);
        expect(await rowOf(page, 'shop.example').textContent()).toContain('1,500 of 1,000');
        expect(await page.locator('section', { hasText: 'Enforcement, newest first' }).textContent()).toContain('pause shop.example');
        await screenshots(page, 'admin-demo');

        await page.getByLabel('Account', { exact: true }).last().fill('alice');
        await page.getByRole('button', { name: "Open the customer's view" }).click();
        await expect.poll(() => page.url()).toMatch(/\/panel/);
        expect(await page.locator('main').textContent()).toContain('shop.example');
        const cookies = (await context.cookies()).map((cookie) => cookie.name);
        expect(cookies).toEqual(expect.arrayContaining(['wpp_admin', 'wpp_customer']));
        await page.goto(new URL('/admin/demo', page.url()).href);
        expect(await page.locator('h1').textContent()).toBe('Demo panel');
      });
    });
  });
});

/** On the Settings page: a bad value is shown next to its field; then a 1,000-hit limit for the account. */
async function setLimitOnSettingsPage(page: Page) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  const form = page.locator('form[action="/admin/settings/limits"]');
  await form.getByLabel('Scope').selectOption('account');
  await form.getByLabel('Subject').fill('alice');
  await form.getByLabel('Hits per website').fill('lots');
  await form.getByRole('button', { name: 'Save limits' }).click();
  await expect.poll(() => page.locator('.field.invalid').first().textContent()).toContain('"lots" is not a whole number');
  await form.getByLabel('Hits per website').fill('1000');
  await form.getByRole('button', { name: 'Save limits' }).click();
  await expect.poll(() => page.getByRole('status').textContent()).toContain('The limits were saved.');
  await screenshots(page, 'admin-settings');
}
