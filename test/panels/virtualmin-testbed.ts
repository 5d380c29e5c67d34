/**
 * The real Virtualmin for the panel suite: found through WPP_VIRTUALMIN_TESTBED (the folder with
 * the testbed's setup.sh; the repository never names where it lives), installed when this
 * machine has no Virtualmin and removed again afterwards, and driven through its own CLI.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const VIRTUALMIN_CLI = '/usr/sbin/virtualmin';

/** What the testbed's setup.sh writes, as its README lists it for teardown. */
const PANEL_PATHS = ['/usr/share/webmin', '/etc/webmin', '/var/webmin', VIRTUALMIN_CLI, '/tmp/.webmin', '/var/webmin-setup.log'];

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command without a shell; resolves whatever its exit code. */
export function run(command: string, args: string[], options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}) {
  return new Promise<CommandResult>((resolve, reject) => {
    execFile(
      command,
      args,
      {
        env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8', ...options.env },
        cwd: options.cwd,
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        if (error !== null && typeof error.code !== 'number') reject(error);
        else resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The testbed folder from WPP_VIRTUALMIN_TESTBED; throws saying what to set when it is unset or wrong. */
export function testbedFolder(): string {
  const folder = process.env.WPP_VIRTUALMIN_TESTBED;
  if (folder === undefined || folder.trim() === '') {
    throw new Error(
      'WPP_VIRTUALMIN_TESTBED is not set: set it to the folder holding the Virtualmin testbed (its setup.sh and tarballs), then run npm run test:panels as root',
    );
  }
  const setup = join(folder, 'setup.sh');
  if (!existsSync(setup) || !statSync(setup).isFile()) {
    throw new Error(`WPP_VIRTUALMIN_TESTBED=${folder} holds no setup.sh: point it at the Virtualmin testbed folder`);
  }
  return folder;
}

export const virtualminInstalled = () => existsSync(VIRTUALMIN_CLI);

/** Installs Webmin + Virtualmin from the testbed (about 20 s). */
export async function installVirtualmin(folder: string): Promise<void> {
  const result = await run('/bin/sh', [join(folder, 'setup.sh')], { timeoutMs: 600_000 });
  if (result.code !== 0 || !virtualminInstalled()) {
    throw new Error(`the testbed's setup.sh failed (exit ${result.code}): ${(result.stdout + result.stderr).trim().split('\n').slice(-10).join(' / ')}`);
  }
}

/** Removes what setup.sh installed: only called when this suite installed it. */
export function removeVirtualmin(): void {
  for (const path of PANEL_PATHS) rmSync(path, { recursive: true, force: true });
}

/** Lines Virtualmin prints on every call on this machine (no MySQL, no external IP): left out of messages. */
const noise = (line: string) => /MySQL|MariaDB|externally visible/.test(line) || line.trim() === '';

/** `virtualmin <args>`, failing with its output when it exits non-zero. */
export async function virtualmin(...args: string[]): Promise<string> {
  const result = await run(VIRTUALMIN_CLI, args);
  const output = `${result.stdout}\n${result.stderr}`
    .split('\n')
    .filter((line) => !noise(line))
    .join('\n');
  if (result.code !== 0) throw new Error(`virtualmin ${args[0] ?? ''} exited ${result.code}: ${output.trim().split('\n').slice(-6).join(' / ')}`);
  return output;
}

export async function domainId(domain: string): Promise<string> {
  return (await virtualmin('list-domains', '--domain', domain, '--id-only')).trim();
}

export async function domainNames(): Promise<string[]> {
  return (await virtualmin('list-domains', '--name-only'))
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/** A file's content, or null when it is not there: what the suite puts back afterwards. */
export const snapshot = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : null);

/**
 * Runs one of the wpp module's pages as Webmin does: from the module's folder, as root, with the
 * CGI variables miniserv sets and REMOTE_USER the signed-in Webmin user. Returns its headers.
 */
export async function webminPage(page: string, user: string, query = ''): Promise<{ status: string; location?: string; body: string }> {
  const moduleDir = '/usr/share/webmin/wpp';
  const result = await run('/usr/bin/perl', [page], {
    cwd: moduleDir,
    env: {
      WEBMIN_CONFIG: '/etc/webmin',
      WEBMIN_VAR: '/var/webmin',
      PERLLIB: '/usr/share/webmin',
      SERVER_ROOT: '/usr/share/webmin',
      REMOTE_USER: user,
      BASE_REMOTE_USER: user,
      SCRIPT_NAME: `/wpp/${page}`,
      SCRIPT_FILENAME: `${moduleDir}/${page}`,
      REQUEST_METHOD: 'GET',
      QUERY_STRING: query,
      SERVER_NAME: 'localhost',
      SERVER_PORT: '10000',
    },
  });
  const [head = '', ...rest] = result.stdout.split(/\r?\n\r?\n/);
  const header = (name: string) => new RegExp(`^${name}: *(.*?)\\r?$`, 'mi').exec(head)?.[1];
  return { status: header('Status') ?? (result.code === 0 ? '200' : `exit ${result.code}`), location: header('Location'), body: rest.join('\n\n') + result.stderr };
}
