/**
 * Signing into the plugin's pages in tests: launch URLs signed with the test panel secret,
 * and screenshots of a page at the two widths every page is checked at.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { createLaunchToken, type LaunchRequest } from '../../src/core/launch-tokens.js';
import { TEST_PANEL_SECRET } from './plugin.js';

/** A launch URL into `pluginUrl`, as `wpp launch-url` prints it. */
export function launchUrl(
  pluginUrl: string,
  request: LaunchRequest,
  options: { now?: number; next?: string; secret?: string } = {},
): string {
  const { token } = createLaunchToken(options.secret ?? TEST_PANEL_SECRET, request, { now: options.now ?? Date.now() });
  return `${pluginUrl}/launch?token=${token}${options.next ? `&next=${encodeURIComponent(options.next)}` : ''}`;
}

export const customer = (account: string, domain?: string): LaunchRequest => ({ role: 'customer', account, domain, panel: 'test' });
export const admin = (name = 'alice-admin'): LaunchRequest => ({ role: 'admin', admin: name, panel: 'test' });

/** Where screenshots go: TEST_SCREENSHOT_DIR, else test-results/screenshots (git-ignored). */
export const SCREENSHOT_DIR = process.env.TEST_SCREENSHOT_DIR ?? join(process.cwd(), 'test-results', 'screenshots');

/** Full-page screenshots at 1280 and 390 px wide (`<name>-1280.png`, `<name>-390.png`); the viewport is restored. */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const before = page.viewportSize() ?? { width: 1280, height: 900 };
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(before);
}
