/**
 * Runs a panel's own tools (manage_hooks, plesk, whmapi1, systemctl, ...). Always by the
 * absolute path the vendor documents, never looked up on PATH or guessed per panel version:
 * users of other plugins lose their hooks when a panel update moves a theme or a PHP binary.
 * Under `--root DIR` (tests, staging a server image) the same path is taken below DIR, so a
 * test root holds fake tools exactly where the panel keeps the real ones.
 */
import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { join } from 'node:path';

export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The only PATH a panel tool gets: the system's folders, never a user's. */
export const TOOL_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Everything a panel tool's environment holds: a fixed PATH, the C locale (the output is
 * parsed), and what the call passes. Not this process's environment: it holds the partner key
 * and secrets (WPP_*) and may hold what steers the tool's interpreter or the dynamic linker
 * (NODE_OPTIONS, PERL5OPT, LD_PRELOAD), and these tools run as root.
 */
export const toolEnvironment = (extra: Record<string, string> = {}): Record<string, string> => ({
  PATH: TOOL_PATH,
  LC_ALL: 'C',
  ...extra,
});

export interface ToolRunOptions {
  /** Added to the tool's minimal environment (toolEnvironment). */
  env?: Record<string, string>;
  /** Written to the tool's standard input. */
  input?: string;
  /** Milliseconds before the tool is killed; default 120 s (a panel tool can be slow, never endless). */
  timeoutMs?: number;
}

/** A tool that is not where its vendor keeps it, or that failed. Its message names the tool, never an argument (arguments can carry secrets). */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  constructor(
    readonly code: 'TOOL_MISSING' | 'TOOL_FAILED',
    message: string,
    readonly result?: ToolResult,
  ) {
    super(message);
  }
}

export interface ToolRunner {
  /** The root the tools and files are taken under: '/' on a real server. */
  readonly root: string;
  /** Where an absolute path of the target system is on this machine. */
  at(path: string): string;
  /** True when the tool is there and executable. */
  exists(tool: string): Promise<boolean>;
  /** Runs the tool; resolves with its exit code and output whatever the code (see `check`). */
  run(tool: string, args: string[], options?: ToolRunOptions): Promise<ToolResult>;
  /** Runs the tool and throws a ToolError unless it exits 0. */
  check(tool: string, args: string[], options?: ToolRunOptions): Promise<ToolResult>;
}

export function createToolRunner(root = '/'): ToolRunner {
  const at = (path: string) => (root === '/' ? path : join(root, path));
  const exists = (tool: string) =>
    access(at(tool), constants.X_OK).then(
      () => true,
      () => false,
    );

  async function run(tool: string, args: string[], options: ToolRunOptions = {}): Promise<ToolResult> {
    if (!tool.startsWith('/')) throw new Error(`panel tools are run by absolute path, not "${tool}"`);
    if (!(await exists(tool)))
      throw new ToolError('TOOL_MISSING', `${tool} is not there (or not executable)${root === '/' ? '' : ` under ${root}`}`);
    return new Promise((resolve, reject) => {
      const child = spawn(at(tool), args, {
        env: toolEnvironment(options.env),
        stdio: ['pipe', 'pipe', 'pipe'],
        timeout: options.timeoutMs ?? 120_000,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', (error) => reject(new ToolError('TOOL_FAILED', `${tool} could not run: ${error.message}`)));
      child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input ?? '');
    });
  }

  async function check(tool: string, args: string[], options?: ToolRunOptions): Promise<ToolResult> {
    const result = await run(tool, args, options);
    if (result.code !== 0) {
      const said = (result.stderr.trim() || result.stdout.trim()).split('\n').slice(-3).join(' / ');
      throw new ToolError('TOOL_FAILED', `${tool} ${args[0] ?? ''} exited ${result.code}${said ? `: ${said}` : ''}`, result);
    }
    return result;
  }

  return { root, at, exists, run, check };
}
