import { chromium, type BrowserContext } from 'playwright-core';
import { createTempDir, removeTempDir } from './temp.js';

/** Debian's Chromium (`apt-get install chromium`); .ci/run installs it. */
export const CHROMIUM_PATH = process.env.WPP_CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Runs `fn` with a headless Chromium in a fresh profile, flags set for a closed network
 * (no background requests, no component updates), and always closes it and removes the profile.
 */
export async function withBrowser<T>(fn: (context: BrowserContext) => Promise<T>): Promise<T> {
  const profile = createTempDir('wpp-chromium-');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'],
  });
  try {
    return await fn(context);
  } finally {
    await context.close();
    removeTempDir(profile);
  }
}
