import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
/**
 * Every install target's panel, faked below a test root the way its own installer test does:
 * for tests that run `wpp install <panel>` for each target in INSTALL_TARGETS. Typed by
 * InstallTarget, so a target added to src/install/panels.ts fails the type check until it has
 * a fake here, and every such test covers it from then on.
 */
import type { InstallTarget } from '../../src/install/panels.js';
import { fakeCpanelTools } from './fake-cpanel.js';
import { fakePlesk } from './fake-plesk.js';
import { fakeSystemctl, fakeTool } from './fake-tools.js';
import { fakeVirtualmin } from './fake-virtualmin.js';

export const FAKE_PANELS = {
  systemd: (root: string) => fakeSystemctl(root),
  cpanel: (root: string) => {
    fakeSystemctl(root);
    fakeCpanelTools(root);
  },
  plesk: (root: string) => {
    fakePlesk(root);
    fakeSystemctl(root);
  },
  directadmin: (root: string) => {
    fakeSystemctl(root);
    // The installer requires DirectAdmin's binary where DirectAdmin keeps it.
    fakeTool(root, '/usr/local/directadmin/directadmin');
    // Every DirectAdmin has its admin data folder (the installer adds its package item to custom_package_items.conf there).
    mkdirSync(join(root, '/usr/local/directadmin/data/admin'), { recursive: true });
  },
  virtualmin: (root: string) => {
    fakeSystemctl(root);
    fakeVirtualmin(root);
  },
} satisfies Record<InstallTarget, (root: string) => void>;

/** The fake panel for `target`; a target without one fails the test that asked, saying where to add it. */
export function fakePanel(target: string): (root: string) => void {
  const fake = (FAKE_PANELS as Record<string, ((root: string) => void) | undefined>)[target];
  if (!fake) throw new Error(`no fake panel for the install target "${target}": add one to test/helpers/fake-panels.ts`);
  return fake;
}
