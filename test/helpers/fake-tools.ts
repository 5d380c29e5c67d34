/**
 * Fake panel tools for installer and import tests. Each is a small sh script placed in a
 * temporary root at the path where the panel keeps the real tool (the installers call tools
 * by absolute path, below --root in tests); it appends its call to a log and then runs a
 * scripted answer. Decoys with the same names sit in a folder put first on PATH: they log to
 * another file, so a test proves no tool was looked up on PATH.
 */
import { appendFileSync, chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const CALLS = '.fake-tool-calls';
const DECOY_CALLS = '.decoy-calls';
const USERS = '.fake-users';
const USER_CALLS = '.fake-user-calls';
/** The user tools every install calls; kept out of toolCalls and filesBelow so each panel's test reads as before. */
const USER_TOOLS = ['/usr/bin/getent', '/usr/sbin/useradd', '/usr/sbin/userdel'];

/** The uid and gid the fake useradd gives the wpp user: a system account's (below 1000); root may chown to it whether or not it exists here. */
export const FAKE_SERVICE_ID = 999;

export interface FakeToolOptions {
  /** sh run after the call is logged; sees the arguments as "$@" and the test root as $FAKE_ROOT. Default: exit 0. */
  script?: string;
}

/** Places a fake tool at `path` (absolute on the target system) below `root`. */
export function fakeTool(root: string, path: string, options: FakeToolOptions = {}): void {
  const file = join(root, path);
  mkdirSync(dirname(file), { recursive: true });
  const log = join(root, CALLS);
  writeFileSync(
    file,
    [
      '#!/bin/sh',
      `FAKE_ROOT='${root}'`,
      `{ printf '%s' '${path}'; for a in "$@"; do printf '\\t%s' "$a"; done; printf '\\n'; } >> '${log}'`,
      options.script ?? 'exit 0',
      '',
    ].join('\n'),
  );
  chmodSync(file, 0o755);
}

/** Every call the fake tools got, in order: [tool, ...args]. */
export function toolCalls(root: string): string[][] {
  const log = join(root, CALLS);
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'));
}

/** A folder of decoy tools named like the real ones, to put first on PATH; `decoyCalls` lists their calls. */
export function decoyPath(root: string, names: string[]): string {
  const dir = join(root, '.decoys');
  mkdirSync(dir, { recursive: true });
  for (const name of names) {
    const file = join(dir, name);
    writeFileSync(file, `#!/bin/sh\necho "${name} $*" >> '${join(root, DECOY_CALLS)}'\nexit 0\n`);
    chmodSync(file, 0o755);
  }
  return dir;
}

export function decoyCalls(root: string): string[] {
  const log = join(root, DECOY_CALLS);
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
}

/**
 * Fake getent, useradd and userdel sharing a passwd-like file below the root (`seedUser` adds
 * to it); their calls go to their own log (`userToolCalls`).
 */
export function fakeUserTools(root: string): void {
  const users = join(root, USERS);
  const log = `{ printf '%s' "$0"; for a in "$@"; do printf '\\t%s' "$a"; done; printf '\\n'; } >> '${join(root, USER_CALLS)}'`;
  const scripts: Record<string, string> = {
    '/usr/bin/getent': `[ "$1" = passwd ] && [ -f '${users}' ] && grep "^$2:" '${users}' && exit 0\nexit 2`,
    '/usr/sbin/useradd': `for name; do :; done\nprintf '%s:x:${FAKE_SERVICE_ID}:${FAKE_SERVICE_ID}::/var/lib/wpp:/usr/sbin/nologin\\n' "$name" >> '${users}'`,
    '/usr/sbin/userdel': `grep -v "^$1:" '${users}' > '${users}.new'; mv '${users}.new' '${users}'`,
  };
  for (const [tool, script] of Object.entries(scripts)) {
    const file = join(root, tool);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `#!/bin/sh\n${log.replace('"$0"', `'${tool}'`)}\n${script}\n`);
    chmodSync(file, 0o755);
  }
}

/** Adds a passwd line to the fake user tools' file: `name:x:uid:gid::home:shell`. */
export function seedUser(root: string, line: string): void {
  appendFileSync(join(root, USERS), `${line}\n`);
}

/** Every call the fake user tools got, as "tool arg arg" lines. */
export function userToolCalls(root: string): string[] {
  const log = join(root, USER_CALLS);
  return existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('\t').join(' '))
    : [];
}

/** A stateful fake systemctl: enable/disable/is-enabled keep their state in a file below the root; with the fake user tools every install needs. */
export function fakeSystemctl(root: string): void {
  fakeUserTools(root);
  fakeTool(root, '/usr/bin/systemctl', {
    script: [
      'state="$FAKE_ROOT/.systemd-enabled"',
      'case "$1" in',
      '  enable) touch "$state" ;;',
      '  disable) rm -f "$state" ;;',
      '  is-enabled) [ -f "$state" ] || exit 1 ;;',
      'esac',
      'exit 0',
    ].join('\n'),
  });
}

/**
 * Every file below `root` that is not a test fixture (fake tools, their logs, decoys), as
 * paths on the target system with their modes: what an installation left behind.
 */
export function filesBelow(root: string, ignore: string[] = []): Map<string, number> {
  const found = new Map<string, number>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      const path = `/${relative(root, full)}`;
      if (
        [CALLS, DECOY_CALLS, USERS, USER_CALLS, '.decoys', '.systemd-enabled'].includes(name) ||
        USER_TOOLS.includes(path) ||
        ignore.includes(path)
      )
        continue;
      const info = statSync(full);
      if (info.isDirectory()) walk(full);
      else found.set(path, info.mode & 0o777);
    }
  };
  walk(root);
  return found;
}
