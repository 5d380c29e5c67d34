/**
 * A keyboard user sees where they are: every control the Tab key reaches shows a focus ring at
 * least 2 px wide with a contrast of at least 3:1 against what surrounds it (WCAG 2.2, 2.4.13
 * and 1.4.11), textareas and the dark menu bar included.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { admin, customer, launchUrl } from '../helpers/pages.js';
import { protectedWebsite, withPlugin } from '../helpers/plugin.js';

const DOMAIN = 'focus.example';

interface FocusRing {
  control: string;
  width: number;
  contrast: number;
}

/** Tabs through the page (at most `limit` stops) and measures each focused control's ring against its background. */
async function focusRings(page: Page, limit = 120): Promise<FocusRing[]> {
  const rings: FocusRing[] = [];
  const seen = new Set<string>();
  for (let stop = 0; stop < limit; stop++) {
    await page.keyboard.press('Tab');
    const ring = await page.evaluate(() => {
      // Evaluated in the browser: the DOM's types are not in this project's compile, so it is typed loosely.
      /* eslint-disable @typescript-eslint/no-explicit-any */
      const doc = (globalThis as any).document;
      const view = (globalThis as any).window;
      const element = doc.activeElement;
      if (!element || element === doc.body) return null;
      const rgb = (colour: string) => (colour.match(/[\d.]+/g) ?? []).map(Number);
      const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
        const channel = (c: number) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
      };
      let node = element.parentElement;
      let background = [255, 255, 255];
      while (node) {
        const colour = rgb(view.getComputedStyle(node).backgroundColor);
        if (colour.length === 3 || (colour.length === 4 && colour[3] === 1)) {
          background = colour.slice(0, 3);
          break;
        }
        node = node.parentElement;
      }
      const style = view.getComputedStyle(element);
      const width = style.outlineStyle === 'none' ? 0 : parseFloat(style.outlineWidth);
      const [a = 0, b = 0] = [luminance(rgb(style.outlineColor)), luminance(background)].sort((x, y) => y - x);
      const label = `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''} "${(element.textContent || element.name || '').trim().slice(0, 30)}"`;
      return { control: `${view.location.pathname} ${label}`, width, contrast: Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100 };
      /* eslint-enable @typescript-eslint/no-explicit-any */
    });
    if (!ring || seen.has(ring.control)) continue;
    seen.add(ring.control);
    rings.push(ring);
  }
  return rings;
}

describe('focus rings', () => {
  it(
    'show on every control a keyboard reaches, 2 px or more at 3:1 or more, on the customer and admin pages',
    { timeout: 120_000 },
    async () => {
      await withPlugin(async (plugin, sb) => {
        await protectedWebsite(plugin, sb, 'fay', DOMAIN);

        await withBrowser(async (context) => {
          const page = await context.newPage();
          await page.setViewportSize({ width: 1280, height: 900 });
          const rings: FocusRing[] = [];
          await page.goto(launchUrl(plugin, customer('fay'), { next: `/panel/domains/${DOMAIN}` }));
          rings.push(...(await focusRings(page)));
          await page.goto(launchUrl(plugin, admin(), { next: '/admin/settings' }));
          rings.push(...(await focusRings(page)));

          expect(rings.some((ring) => ring.control.includes('textarea'))).toBe(true);
          expect(rings.some((ring) => ring.control.includes('/admin/settings'))).toBe(true);
          const faint = rings.filter((ring) => ring.width < 2 || ring.contrast < 3);
          expect(faint, `${rings.length} controls reached`).toEqual([]);
        });
      });
    },
  );
});
