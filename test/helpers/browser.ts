import sparticuzChromium from '@sparticuz/chromium';
import { chromium, type BrowserContext } from 'playwright-core';
import { createTempDir, removeTempDir } from './temp.js';

/**
 * Flags of @sparticuz/chromium that weaken the web's security model (made for scraping on
 * Lambda). Browser tests check framing and security headers, so these stay off.
 */
const WEAKENING_FLAGS = new Set(['--disable-web-security', '--allow-running-insecure-content', '--disable-site-isolation-trials']);

/** No background requests, component updates or QUIC: this machine's network is closed. */
const QUIET_FLAGS = [
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
  '--disable-gpu',
];

/**
 * The browser the tests drive: `TEST_CHROMIUM_PATH` when set (a system Chromium), else the
 * headless Chromium that the npm package @sparticuz/chromium ships inside itself, unpacked
 * to the temp folder on first use. Nothing beyond `npm install` is needed.
 */
async function browserLaunch(): Promise<{ executablePath: string; args: string[] }> {
  const systemPath = process.env.TEST_CHROMIUM_PATH;
  if (systemPath) return { executablePath: systemPath, args: ['--no-sandbox', ...QUIET_FLAGS] };
  return {
    executablePath: await sparticuzChromium.executablePath(),
    args: [...sparticuzChromium.args.filter((flag) => !WEAKENING_FLAGS.has(flag)), ...QUIET_FLAGS],
  };
}

/**
 * Runs `fn` with a headless Chromium in a fresh profile, and always closes it and removes
 * the profile. `javaScriptEnabled: false`: a browser without scripts, for pages that must work without them.
 */
export async function withBrowser<T>(
  fn: (context: BrowserContext) => Promise<T>,
  options: { javaScriptEnabled?: boolean } = {},
): Promise<T> {
  const profile = createTempDir('wpp-chromium-');
  const { executablePath, args } = await browserLaunch();
  // A set locale: a bare POSIX environment gives Chromium the language tag `en-US@posix`, which
  // Intl refuses, and libraries that format numbers with navigator.language (uPlot) fail to load.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args,
    locale: 'en-US',
    javaScriptEnabled: options.javaScriptEnabled ?? true,
  });
  try {
    return await fn(context);
  } finally {
    await context.close();
    removeTempDir(profile);
  }
}
