/**
 * The overview's provider badge on a server that hosts no website yet: a provider that has
 * answered (the server's registration) is reachable at once, not "never reached" until the
 * first statistics read; one that refuses the partner key, or is not there, is not.
 */
import { describe, expect, it } from 'vitest';
import { admin, launchUrl } from '../helpers/pages.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { startTestPlugin, withPlugin } from '../helpers/plugin.js';
import { removeTempDir, withSandbox } from '../helpers/sandbox.js';

async function overviewText(plugin: { url: string; dataDir: string }): Promise<string> {
  const client = createPageClient(plugin.url);
  expect((await client.get(launchUrl(plugin, admin()))).status).toBe(303);
  return textOf((await client.get('/admin')).body);
}

describe('the overview: when the provider last answered', () => {
  it('counts any answer of the provider, such as the server registration, before a single website exists', async () => {
    await withPlugin(async (plugin) => {
      await plugin.idle();
      const text = await overviewText(plugin);
      expect(text).toContain('0 active websites');
      expect(text).toContain('Reachable');
      expect(text).toContain('provider last answered just now');
    });
  });

  it('keeps "never reached" while the provider refuses the partner key', async () => {
    await withSandbox(async (sandbox) => {
      const plugin = await startTestPlugin(sandbox, { env: { WPP_PROVIDER_API_KEY: 'not-the-partner-key' } });
      try {
        // The registration was attempted and refused (401); the job waits to be retried.
        await expect.poll(() => plugin.jobs.list({ limit: 10 }).some((job) => job.attempts > 0), { timeout: 10_000 }).toBe(true);
        const text = await overviewText(plugin);
        expect(text).toContain('Never reached');
        expect(text).toContain('provider last answered never');
      } finally {
        await plugin.close();
        removeTempDir(plugin.dataDir);
      }
    });
  });
});
