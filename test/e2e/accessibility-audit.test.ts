/**
 * The audit every screenshot runs (test/helpers/pages.ts) finds what a screen-reader user or a
 * keyboard user would trip on: this holds it to failing on a page that has such faults, so a
 * clean audit of the plugin's pages means something.
 */
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { expectAccessible } from '../helpers/pages.js';

describe('the accessibility audit of the browser tests', () => {
  it('fails on an unlabelled field, a nameless button and faint text, naming each rule', { timeout: 60_000 }, async () => {
    await withBrowser(async (context) => {
      const page = await context.newPage();
      await page.setContent(
        `<!doctype html><html lang="en"><head><title>Faults</title></head><body><main>
          <h1>Faults</h1><input type="text"><button></button><p style="color:#bbb;background:#fff">faint</p>
        </main></body></html>`,
      );
      const failure = await expectAccessible(page, 'faults').then(
        () => 'no violation found',
        (error: unknown) => String(error),
      );
      expect(failure).toContain('label');
      expect(failure).toContain('button-name');
      expect(failure).toContain('color-contrast');

      await page.setContent(
        '<!doctype html><html lang="en"><head><title>Fine</title></head><body><main><h1>Fine</h1></main></body></html>',
      );
      await expectAccessible(page, 'fine');
    });
  });
});
