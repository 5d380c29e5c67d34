/**
 * Child processes for benchmarks: a server runs in its own process so the load generator
 * does not share its event loop, and its peak memory is its own.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** Peak resident set size (VmHWM) of a live process, in MB; null when unreadable (not Linux, gone). */
export function peakRssMb(pid: number): number | null {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

export interface ChildServer<T> {
  pid: number;
  /** The first JSON line the child printed (its address, keys). */
  ready: T;
  /** The next JSON line the child prints (a result), or rejects when the child exits first. */
  nextMessage<M = unknown>(timeoutMs: number): Promise<M>;
  /** Writes one JSON line to the child's stdin (a command; children that read stdin lines, see commandsFromParent). */
  send(value: unknown): void;
  /** Asks the child to stop (closes its stdin, then SIGTERM, then SIGKILL) and waits for its exit. */
  stop(): Promise<void>;
}

export interface ChildOptions {
  /** Extra Node flags, e.g. --cpu-prof. */
  nodeFlags?: string[];
  env?: Record<string, string>;
  /** Where the child's stderr goes: a file path, or 'inherit'. Default 'inherit'. */
  stderr?: string;
  /** How long to wait for the first line. Default 30 s. */
  startTimeoutMs?: number;
}

/**
 * Runs `node --import tsx <script> ...args` (plain `node` for a `.mjs` script). The child prints one JSON line on stdout when it
 * is ready, may print more (results), and stops when its stdin closes.
 */
export async function startChild<T>(script: string, args: string[], options: ChildOptions = {}): Promise<ChildServer<T>> {
  const stderrFd = options.stderr && options.stderr !== 'inherit' ? openSync(options.stderr, 'a') : 'inherit';
  const child: ChildProcess = spawn(
    process.execPath,
    [...(options.nodeFlags ?? []), ...(script.endsWith('.mjs') ? [] : ['--import', 'tsx']), script, ...args],
    {
      stdio: ['pipe', 'pipe', stderrFd],
      env: { ...process.env, ...options.env },
    },
  );
  if (typeof stderrFd === 'number') closeSync(stderrFd);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines: string[] = [];
  const waiters: ((line: string | null) => void)[] = [];
  const reader = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  reader.on('line', (line) => {
    if (!line.startsWith('{')) return;
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  void exited.then(() => {
    for (const waiter of waiters.splice(0)) waiter(null);
  });

  function nextMessage<M>(timeoutMs: number): Promise<M> {
    return new Promise<M>((resolve, reject) => {
      const deliver = (line: string | null) => {
        clearTimeout(timer);
        if (line === null) reject(new Error(`${script} exited before answering`));
        else resolve(JSON.parse(line) as M);
      };
      const timer = setTimeout(() => {
        const i = waiters.indexOf(deliver);
        if (i >= 0) waiters.splice(i, 1);
        reject(new Error(`${script} did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      const queued = lines.shift();
      if (queued !== undefined) deliver(queued);
      else if (child.exitCode !== null || child.signalCode !== null) deliver(null);
      else waiters.push(deliver);
    });
  }

  async function stop(): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin?.end();
    const timeout = (ms: number) => new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref());
    if ((await Promise.race([exited, timeout(10_000)])) === 'timeout') {
      child.kill('SIGTERM');
      if ((await Promise.race([exited, timeout(5_000)])) === 'timeout') child.kill('SIGKILL');
      await exited;
    }
  }

  try {
    const ready = await nextMessage<T>(options.startTimeoutMs ?? 30_000);
    const send = (value: unknown) => void child.stdin?.write(`${JSON.stringify(value)}\n`);
    return { pid: child.pid as number, ready, nextMessage, send, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Resolves when stdin closes (the parent asked us to stop, or died) or on SIGTERM/SIGINT. */
export function stopRequested(): Promise<void> {
  return new Promise((resolve) => {
    process.stdin.on('end', () => resolve());
    process.stdin.on('error', () => resolve());
    process.stdin.resume();
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
}

/** CPU seconds (user + system) a live process has used so far; null when unreadable. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at index 2 (state).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Builds dist/ (npm run build), for children that run the compiled plugin as a deployment does. */
export function buildDist(): void {
  console.error('building dist/ (npm run build) ...');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: new URL('../..', import.meta.url).pathname, stdio: ['ignore', 2, 2] });
}
