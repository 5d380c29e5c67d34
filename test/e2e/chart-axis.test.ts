/**
 * The traffic chart's hit axis on a busy website: every label is drawn whole. A label cut at the
 * chart's left edge turns 800,000 into "00,000" (or "300,000" to the eye), a misread count.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { customer, launchUrl } from '../helpers/pages.js';
import { protectedWebsite, withPlugin } from '../helpers/plugin.js';

const DOMAIN = 'busy.example';

/** The little of a canvas this check reads (the tests compile without the DOM's types). */
interface Canvas2d {
  height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
}

/** Painted pixels in the chart canvas's leftmost columns: where a label wider than its axis spills over. */
async function paintAtLeftEdge(page: Page): Promise<number> {
  return page
    .locator('#hits-chart canvas')
    .first()
    .evaluate((element) => {
      const canvas = element as unknown as Canvas2d;
      const context = canvas.getContext('2d');
      if (!context) throw new Error('the chart has no 2d canvas');
      const { data } = context.getImageData(0, 0, 2, canvas.height);
      let painted = 0;
      for (let alpha = 3; alpha < data.length; alpha += 4) if ((data[alpha] ?? 0) > 0) painted++;
      return painted;
    });
}

describe('the traffic chart', () => {
  it('draws every hit-axis label whole, up to billions of hits, at both page widths', { timeout: 120_000 }, async () => {
    await withPlugin(async (plugin, sb) => {
      await protectedWebsite(plugin, sb, 'dora', DOMAIN);
      await plugin.syncStatistics(); // the first read is the baseline
      await sb.control('POST', `/_sandbox/websites/${DOMAIN}/traffic`, { hits: 2_500_000_000, blocked: 1_000_000, mitigated: 0 });
      await plugin.syncStatistics();

      await withBrowser(async (context) => {
        const page = await context.newPage();
        await page.goto(launchUrl(plugin, customer('dora'), { next: `/panel/domains/${DOMAIN}` }));
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 900 });
          await page.reload();
          await page.locator('#hits-chart.drawn canvas').first().waitFor({ state: 'visible' });
          expect(await page.locator('table.totals').textContent()).toContain('2,500,000,000');
          expect(await paintAtLeftEdge(page), `labels cut at the left edge at ${width} px`).toBe(0);
        }
      });
    });
  });
});
