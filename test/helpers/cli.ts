import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

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
  /** Run as this user id (and group id `gid`, default the same); needs root. */
  uid?: number;
  gid?: number;
}

/** Spawns `wpp ...` from the sources, with only PATH and `env` in its environment. */
export function spawnWpp(args: string[], options: WppProcessOptions = {}): ChildProcessWithoutNullStreams {
  const node = [process.execPath, '--import', 'tsx', 'src/cli.ts', ...args];
  const [command, ...argv] = options.umask === undefined ? node : ['sh', '-c', `umask ${options.umask.toString(8).padStart(3, '0')}; exec "$@"`, 'sh', ...node];
  return spawn(command as string, argv, {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid ?? options.uid }),
  });
}

/** Runs `wpp ...` from the sources as a real process, with only PATH and `env` in its environment. */
export function runWpp(args: string[], options: WppProcessOptions & { stdin?: string } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawnWpp(args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
