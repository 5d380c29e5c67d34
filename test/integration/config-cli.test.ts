/** What `wpp` makes of the environment it is given. */
import { describe, expect, it } from 'vitest';
import { runWpp } from '../helpers/cli.js';

/** Each `wpp` process starts tsx first: seconds on a busy 2-core machine. */
const PROCESSES = 60_000;

describe('a command that never reaches the provider', () => {
  it('runs without the partner key, with its settings validated', async () => {
    const env = { WPP_PROVIDER_URL: 'https://api.provider.example', WPP_CPANEL_HOOK_COMMAND: '/opt/wpp/bin/hook' };
    const described = await runWpp(['hook', 'cpanel', '--describe'], { env });
    expect(described.code).toBe(0);
    expect(JSON.parse(described.stdout)[0]).toMatchObject({ hook: '/opt/wpp/bin/hook' });
    const relative = await runWpp(['hook', 'cpanel', '--describe'], { env: { ...env, WPP_CPANEL_HOOK_COMMAND: 'bin/hook' } });
    expect(relative.code).toBe(1);
    expect(relative.stderr).toContain('WPP_CPANEL_HOOK_COMMAND: must be an absolute path');
  }, PROCESSES);
});
