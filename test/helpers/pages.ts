/**
 * Signing into the plugin's pages in tests: launch URLs signed with the sign-in key of the
 * plugin under test (in its data folder, as `wpp launch-url` signs them), and screenshots of a
 * page at the two widths every page is checked at.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { createLaunchToken, type LaunchRequest } from '../../src/core/launch-tokens.js';
import { readSignInKey } from '../../src/secrets.js';

/** The plugin a launch URL goes to: its address, and the data folder its sign-in key is in. */
export interface LaunchTarget {
  url: string;
  dataDir: string;
}

/** A launch URL into `plugin`, as `wpp launch-url` prints it; `secret` signs it with another key instead (a forged link). */
export function launchUrl(
  plugin: LaunchTarget,
  request: LaunchRequest,
  options: { now?: number; next?: string; secret?: string } = {},
): string {
  const { token } = createLaunchToken(options.secret ?? readSignInKey(plugin.dataDir), request, { now: options.now ?? Date.now() });
  return `${plugin.url}/launch?token=${token}${options.next ? `&next=${encodeURIComponent(options.next)}` : ''}`;
}

export const customer = (account: string, domain?: string): LaunchRequest => ({ role: 'customer', account, domain, panel: 'test' });
export const admin = (name = 'alice-admin'): LaunchRequest => ({ role: 'admin', admin: name, panel: 'test' });
export const reseller = (name = 'res1'): LaunchRequest => ({ role: 'reseller', reseller: name, panel: 'test' });

/** Where screenshots go: TEST_SCREENSHOT_DIR, else test-results/screenshots (git-ignored). */
export const SCREENSHOT_DIR = process.env.TEST_SCREENSHOT_DIR ?? join(process.cwd(), 'test-results', 'screenshots');

/** The WCAG levels every page is held to: A and AA, of 2.0, 2.1 and 2.2. */
const WCAG_A_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'];

/**
 * axe-core's audit of the page as it stands (frames included): throws with each A/AA violation,
 * its rule, help and the elements it found, so a failing test says what to mend.
 */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).withTags(WCAG_A_AA).analyze();
  if (violations.length === 0) return;
  const found = violations.map(
    (v) => `- ${v.id} (${v.impact ?? 'n/a'}): ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(' ')}`).join('\n')}`,
  );
  throw new Error(`${name}: ${violations.length} WCAG A/AA violation(s) at ${page.viewportSize()?.width ?? '?'} px\n${found.join('\n')}`);
}

/**
 * Full-page screenshots at 1280 and 390 px wide (`<name>-1280.png`, `<name>-390.png`), each width
 * audited by axe-core for WCAG A/AA first; the viewport is restored.
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const before = page.viewportSize() ?? { width: 1280, height: 900 };
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await expectAccessible(page, name);
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(before);
}
