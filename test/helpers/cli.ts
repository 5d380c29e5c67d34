import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface WppProcessOptions {
  env?: Record<string, string>;
  /** The umask the process starts with (through `sh -c 'umask ...; exec node ...'`), e.g. 0o000. */
  umask?: number;
  /** Capabilities the process runs without (through setpriv), e.g. ['fowner']; needs root. */
  dropCapabilities?: string[];
  /** Runs the process as this user and group (e.g. 65534, nobody); needs root. */
  uid?: number;
  gid?: number;
}

/**
 * A process of another user loads wpp from this checkout, so every folder above it must let
 * others through (x for others). `mktemp -d` makes 0700 folders: a clone inside one fails such
 * a test with a message that says so, not with "Cannot find package 'tsx'".
 */
function assertCheckoutReachableByOthers(uid: number): void {
  for (let at = root.replace(/\/$/, ''); ; at = dirname(at)) {
    const { mode, uid: owner } = statSync(at);
    if (owner !== uid && (mode & 0o001) === 0) {
      throw new Error(
        `this test runs wpp as uid ${uid}, who cannot reach the checkout: ${at} has mode ${(mode & 0o777).toString(8)}; clone into a folder others may traverse (chmod o+x ${at})`,
      );
    }
    if (dirname(at) === at) return;
  }
}

/** The `wpp ...` child process from the sources, with only PATH and `env` in its environment. */
function spawnChild(args: string[], options: WppProcessOptions): ChildProcessWithoutNullStreams {
  if (options.uid !== undefined) assertCheckoutReachableByOthers(options.uid);
  const caps = options.dropCapabilities?.map((cap) => `-${cap}`).join(',');
  const node = [
    ...(caps ? ['setpriv', `--inh-caps=${caps}`, `--bounding-set=${caps}`] : []),
    process.execPath,
    '--import',
    'tsx',
    'src/cli.ts',
    ...args,
  ];
  const [command, ...argv] =
    options.umask === undefined ? node : ['sh', '-c', `umask ${options.umask.toString(8).padStart(3, '0')}; exec "$@"`, 'sh', ...node];
  return spawn(command as string, argv, {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.gid === undefined ? {} : { gid: options.gid }),
  });
}

/** Runs `wpp ...` from the sources as a real process, with only PATH and `env` in its environment. */
export function runWpp(args: string[], options: WppProcessOptions & { stdin?: string } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawnChild(args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

export interface WppProcess {
  pid: number;
  /** Sends a signal to the process. */
  kill(signal: NodeJS.Signals): void;
  /** Resolves when the process has exited, or with null after `timeoutMs` (the process is then left running). */
  exited(timeoutMs: number): Promise<(CliRun & { signal: NodeJS.Signals | null }) | null>;
  /** Resolves once standard output holds `text`; rejects when the process exits first. */
  waitForStdout(text: string): Promise<void>;
  /** What it has printed so far. */
  output(): { stdout: string; stderr: string };
}

/** Starts `wpp ...` like runWpp, without waiting: for tests that signal or kill it mid-run, or need it running. */
export function spawnWpp(args: string[], options: WppProcessOptions = {}): WppProcess {
  const child = spawnChild(args, options);
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const listener of listeners) listener();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<CliRun & { signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return {
    pid: child.pid ?? 0,
    kill: (signal) => void child.kill(signal),
    output: () => ({ stdout, stderr }),
    exited: (timeoutMs) => Promise.race([exit, new Promise<null>((resolve) => setTimeout(() => resolve(null), timeoutMs).unref())]),
    waitForStdout: (text) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!stdout.includes(text)) return;
          listeners.delete(check);
          resolve();
        };
        listeners.add(check);
        check();
        void exit.then((run) =>
          reject(new Error(`wpp ${args[0]} exited (${run.code ?? run.signal}) before printing "${text}": ${run.stdout}${run.stderr}`)),
        );
      }),
  };
}
