/**
 * The environment a panel tool gets when the plugin runs it (the Plesk owner lookup of a hook,
 * the panel listings, the installer's calls). These tools run as root; the plugin's own
 * secrets and whatever steers a Node.js or a dynamic linker must not reach them, only a fixed
 * PATH and what the call itself passes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRunner } from '../../src/install/tools.js';
import { askPleskForOwner, PLESK_TOOL } from '../../src/panel/plesk-owner.js';
import { fakeTool } from '../helpers/fake-tools.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const LEAKS = {
  WPP_PROVIDER_API_KEY: 'partner-key-never-for-panel-tools',
  WPP_PANEL_SECRET: 'panel-secret-never-for-panel-tools',
  NODE_OPTIONS: '--require=/tmp/evil.js',
  LD_PRELOAD: '/tmp/evil.so',
  PATH: '/home/alice/bin:/usr/bin:/bin',
};

let root: string;
let saved: Record<string, string | undefined>;

beforeEach(() => {
  root = createTempDir('wpp-tool-env-');
  saved = Object.fromEntries(Object.keys(LEAKS).map((name) => [name, process.env[name]]));
  Object.assign(process.env, LEAKS);
});
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  removeTempDir(root);
});

/** The environment the fake tool saw, as NAME -> value. */
function seen(): Record<string, string> {
  const text = readFileSync(join(root, '.tool-env'), 'utf8');
  return Object.fromEntries(
    text
      .split('\0')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
}

describe('a panel tool run by the plugin', () => {
  it('sees a fixed PATH and none of the plugin process environment (secrets, NODE_OPTIONS, LD_PRELOAD)', async () => {
    fakeTool(root, PLESK_TOOL, {
      script: `env -0 > "$FAKE_ROOT/.tool-env"\nprintf "Owner's contact name:   Jane Doe (jdoe)\\n"`,
    });
    // The hook's owner lookup: the real code path a Plesk event handler takes, as root.
    expect(await askPleskForOwner(createToolRunner(root), 'jane.example')).toBe('jdoe');
    const env = seen();
    for (const name of ['WPP_PROVIDER_API_KEY', 'WPP_PANEL_SECRET', 'NODE_OPTIONS', 'LD_PRELOAD']) expect(env[name], name).toBeUndefined();
    expect(JSON.stringify(env)).not.toContain('never-for-panel-tools');
    expect(env.PATH).toBe('/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
  });

  it('gets what the call passes on purpose', async () => {
    fakeTool(root, '/usr/local/bin/tool', { script: 'env -0 > "$FAKE_ROOT/.tool-env"' });
    await createToolRunner(root).check('/usr/local/bin/tool', [], { env: { REMOTE_USER: 'root' } });
    expect(seen().REMOTE_USER).toBe('root');
    expect(seen().WPP_PROVIDER_API_KEY).toBeUndefined();
  });
});
