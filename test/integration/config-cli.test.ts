/**
 * What `wpp` says about the environment it is given: an unknown WPP_* variable is named,
 * with the setting it probably meant, once, and the command still runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWpp, spawnWpp } from '../helpers/cli.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const WARNING = 'WPP_SYNC_INTERVAL is not a setting of wpp; did you mean WPP_SYNC_INTERVAL_MINUTES?';
/** Each `wpp` process starts tsx first: seconds on a busy 2-core machine. */
const PROCESSES = 60_000;
let dataDir: string;

beforeAll(() => {
  dataDir = createTempDir('wpp-config-');
});
afterAll(() => removeTempDir(dataDir));

describe('an unknown WPP_* variable', () => {
  it(
    'is a warning on stderr of a one-shot command, which still runs',
    async () => {
      const run = await runWpp(['jobs'], { env: { WPP_DATA_DIR: dataDir, WPP_LOG_LEVEL: 'silent', WPP_SYNC_INTERVAL: '10' } });
      expect(run.stderr).toBe(`wpp: warning: ${WARNING}\n`);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('"pending":0');
    },
    PROCESSES,
  );

  it(
    'is logged once by wpp serve',
    async () => {
      const serve = spawnWpp(['serve'], { env: { WPP_DATA_DIR: dataDir, WPP_PORT: '0', WPP_SANDBOX_PORT: '0', WPP_SYNC_INTERVAL: '10' } });
      try {
        await serve.waitForStdout('Plugin listening on');
      } finally {
        serve.kill('SIGTERM');
      }
      const run = await serve.exited(15_000);
      expect(run?.code).toBe(0);
      const warnings = (run?.stderr ?? '').split('\n').filter((line) => line.includes('WPP_SYNC_INTERVAL'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0] as string)).toMatchObject({ level: 40, msg: WARNING });
    },
    PROCESSES,
  );
});

describe('a command that never reaches the provider', () => {
  it(
    'runs without the partner key, with its settings validated',
    async () => {
      const env = { WPP_PROVIDER_URL: 'https://api.provider.example', WPP_CPANEL_HOOK_COMMAND: '/opt/wpp/bin/hook' };
      const described = await runWpp(['hook', 'cpanel', '--describe'], { env });
      expect(described.code).toBe(0);
      expect(JSON.parse(described.stdout)[0]).toMatchObject({ hook: '/opt/wpp/bin/hook' });
      const relative = await runWpp(['hook', 'cpanel', '--describe'], { env: { ...env, WPP_CPANEL_HOOK_COMMAND: 'bin/hook' } });
      expect(relative.code).toBe(1);
      expect(relative.stderr).toContain('WPP_CPANEL_HOOK_COMMAND: must be an absolute path');
    },
    PROCESSES,
  );
});
