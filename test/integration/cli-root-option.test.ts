/**
 * `--root DIR` of the commands that write a system (install, uninstall, rollback): a relative
 * folder is refused as a usage error before anything is read or written, since each of them
 * resolves every system path below it and a relative one would depend on where it was run.
 */
import { describe, expect, it } from 'vitest';
import { runWpp } from '../helpers/cli.js';

describe('--root of install, uninstall and rollback', () => {
  it.each(['install systemd --root staging', 'uninstall systemd --root staging', 'rollback --root staging'])(
    'wpp %s: a relative folder is a usage error naming the option',
    async (command) => {
      const run = await runWpp(command.split(' '));
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain('--root: give an absolute folder');
    },
  );
});
