/**
 * The provider's rules editor as a customer meets it: framed inside a partner panel on
 * another origin, in a real browser. Framing rules only exist in browsers, so only this
 * test can show the frame really loads and saves.
 */
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { withSandbox } from '../helpers/sandbox.js';
import { startServer } from '../helpers/server.js';

async function startPanelPage(frameUrl: string) {
  const server = await startServer((_req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        `<!doctype html><title>Partner panel</title><h1>My domains</h1><iframe title="rules" src="${frameUrl}" width="900" height="900"></iframe>`,
      );
  });
  return {
    // localhost, not 127.0.0.1 as the sandbox: another origin, as a partner panel is.
    url: `http://localhost:${server.port}/`,
    close: () => server.close({ force: true }),
  };
}

describe('sandbox rules editor in a frame', () => {
  it("loads inside another origin and saves the customer's rules", async () => {
    await withSandbox(async (sb) => {
      const user = await fetch(`${sb.url}/v1.0/user`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sb.partnerKey}` },
        body: new URLSearchParams({ id: 'alice@example.com' }),
      }).then((r) => r.json() as Promise<{ api_key: string }>);
      await sb.control('POST', '/v1.0/website', { domain: 'framed.example', user_id: 'alice@example.com', ip: ['203.0.113.10'] });
      const panel = await startPanelPage(`${sb.url}/en/website/framed.example/edit?api-key=${user.api_key}`);
      try {
        await withBrowser(async (context) => {
          const page = await context.newPage();
          await page.goto(panel.url);
          const frame = page.frameLocator('iframe[title="rules"]');
          await expect.poll(() => frame.locator('h1').textContent()).toContain('framed.example');
          await frame.getByLabel('People', { exact: true }).selectOption('deny');
          await frame.getByLabel('WordPress', { exact: true }).check();
          await frame.getByRole('button', { name: 'Save rules' }).click();
          await expect.poll(() => frame.getByRole('status').textContent()).toContain('Saved.');
          await page.screenshot({ path: `${sb.dataDir}/rules-editor.png`, fullPage: true });
        });
      } finally {
        await panel.close();
      }
      const website = await fetch(`${sb.url}/v1.0/website?domain=framed.example`, {
        headers: { authorization: `Bearer ${sb.partnerKey}` },
      }).then((r) => r.json() as Promise<{ settings: { rules: Record<string, string>; rulesets: Record<string, boolean> } }>);
      expect(website.settings.rules.humans).toBe('deny');
      expect(website.settings.rulesets.wordpress).toBe(true);
      // Switches the form did not touch keep their values.
      expect(website.settings.rules.search_engines).toBe('grant');
    });
  });
});
