/**
 * `wpp <command> --help` for every command and subcommand, as real processes: exit 0, help on
 * standard output, every option and argument with its description. The commands are read from
 * the program itself, so a new one is covered without touching this file.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/program.js';
import { runWpp, type CliRun } from '../helpers/cli.js';

/** Each `wpp` run is a process start (about a second on a busy 2-core machine). */
const PROCESSES = 120_000;

function commandPaths(command: Command, path: string[] = []): { path: string[]; command: Command }[] {
  return command.commands.flatMap((sub) => [{ path: [...path, sub.name()], command: sub }, ...commandPaths(sub, [...path, sub.name()])]);
}

const program = createProgram();
const commands = commandPaths(program);
/** Help wraps at 80 columns: compare text with every run of white space as one space. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

describe('wpp --help', () => {
  it('covers the commands docs/operations.md documents, and the document names every command wpp has', () => {
    const names = commands.map(({ path }) => path.join(' '));
    // The first column of the document's command table: `serve`, `worker [--once]`, `hook cpanel\|plesk...`, ...
    const documented = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((row) => row.split(' | ')[0] ?? '');
    for (const name of new Set(commands.map(({ path }) => path[0]))) {
      expect(
        documented.some((cell) => new RegExp(`\`${name}[ \`\\\\]`).test(cell)),
        name,
      ).toBe(true);
    }
    for (const name of [
      'serve',
      'worker',
      'hook cpanel',
      'hook plesk',
      'hook directadmin',
      'hook emit',
      'jobs',
      'jobs retry',
      'sync-stats',
      'enforce',
      'limits',
      'resume',
      'sandbox',
    ]) {
      expect(names).toContain(name);
    }
  });

  it(
    'lists every command, on standard output with exit 0; so does `wpp` alone',
    async () => {
      const ways = [['--help'], ['help'], []];
      for (const [i, run] of (await Promise.all(ways.map((args) => runWpp(args)))).entries()) {
        const args = ways[i] as string[];
        expect(run.code, args.join(' ')).toBe(0);
        expect(run.stderr).toBe('');
        for (const command of program.commands) expect(flat(run.stdout)).toContain(`${command.name()} `);
        for (const command of program.commands) expect(flat(run.stdout)).toContain(flat(command.description()));
      }
    },
    PROCESSES,
  );

  it(
    'shows every command and subcommand with its options, arguments and descriptions',
    async () => {
      const runs = await Promise.all(commands.map(({ path }) => runWpp([...path, '--help'])));
      for (const [i, { path, command }] of commands.entries()) {
        const run = runs[i] as CliRun;
        const name = `wpp ${path.join(' ')} --help`;
        expect(run.code, name).toBe(0);
        expect(run.stderr, name).toBe('');
        const help = flat(run.stdout);
        expect(help, name).toContain(`Usage: wpp ${path.join(' ')}`);
        expect(help, name).toContain(flat(command.description()));
        for (const option of command.options) {
          expect(help, `${name}: ${option.flags}`).toContain(`${option.flags} ${flat(option.description)}`);
          if (option.defaultValue !== undefined)
            expect(help, `${name}: ${option.flags}`).toContain(`(default: ${JSON.stringify(option.defaultValue)})`);
        }
        for (const argument of command.registeredArguments)
          expect(help, `${name}: ${argument.name()}`).toContain(`${argument.name()} ${flat(argument.description)}`);
        for (const sub of command.commands) expect(help, `${name}: ${sub.name()}`).toContain(sub.name());
      }
    },
    PROCESSES,
  );

  it(
    'wpp limits --help names every limit option, and `wpp help limits` says the same',
    async () => {
      const run = await runWpp(['limits', '--help']);
      expect(run.code).toBe(0);
      for (const option of [
        '--scope',
        '--subject',
        '--allow-unknown',
        '--website-hits',
        '--account-hits',
        '--domain-limit',
        '--period',
        '--anchor-day',
        '--warning-percent',
        '--exempt',
      ]) {
        expect(run.stdout).toContain(option);
      }
      expect(run.stdout).not.toMatch(/unknown option/i);
      expect((await runWpp(['help', 'limits'])).stdout).toBe(run.stdout);
    },
    PROCESSES,
  );

  it(
    'a usage error says what is wrong and where the help is, exit 2',
    async () => {
      const run = await runWpp(['limits', '--colour', 'red']);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe("wpp: unknown option '--colour'\nSee `wpp limits --help`.\n");
      const unknown = await runWpp(['hook', 'nope']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("wpp: unknown command 'nope'\nSee `wpp hook --help`.");
    },
    PROCESSES,
  );
});

describe('a reader that stops early', () => {
  it(
    'ends wpp quietly with exit 0 (wpp --help | head), not with an EPIPE stack trace',
    async () => {
      // Standard output closed before wpp writes: every write then fails with EPIPE, as in `| head`.
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', '--help'], {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        env: { PATH: process.env.PATH ?? '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      expect(stderr).not.toMatch(/EPIPE|Error/);
      expect(code).toBe(0);
    },
    PROCESSES,
  );
});
