import { spawn } from 'node:child_process';

const root = new URL('../..', import.meta.url).pathname;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `wpp ...` from the sources as a real process, with only PATH and `env` in its environment. */
export function runWpp(args: string[], options: { env?: Record<string, string>; stdin?: string } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
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
}

/** Starts `wpp ...` like runWpp, without waiting: for tests that signal or kill it mid-run. */
export function spawnWpp(args: string[], options: { env?: Record<string, string> } = {}): WppProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<CliRun & { signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return {
    pid: child.pid ?? 0,
    kill: (signal) => void child.kill(signal),
    exited: (timeoutMs) =>
      Promise.race([exit, new Promise<null>((resolve) => setTimeout(() => resolve(null), timeoutMs).unref())]),
  };
}
