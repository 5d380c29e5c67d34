/**
 * What `wpp limits` accepts, value by value, without a process per case: every way a number
 * can be mistyped is refused, and a subject is stored as enforcement looks it up.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { optionValues, strictOptions, UsageError } from '../../src/cli/shared.js';
import { limitsChange, limitsCommand, type IsKnown } from '../../src/cli/stats.command.js';

/** The options `wpp limits` reads from `args`: its real command's options, parsed the way every wpp command is. */
function readLimitsOptions(args: string[]) {
  const command = new Command().action(() => undefined);
  for (const option of limitsCommand().options) command.addOption(option);
  strictOptions(command).parse(args, { from: 'user' });
  return optionValues(command);
}

const known = () => true;
const parse = (args: string[], isKnown: IsKnown = known) => limitsChange(readLimitsOptions(args), isKnown);
const usageMessage = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
};

const NUMBER_OPTIONS = ['website-hits', 'account-hits', 'domain-limit', 'anchor-day', 'warning-percent'] as const;

describe('limit values', () => {
  // Number('') is 0, Number('0x10') is 16, Number('1e3') is 1000: none of that becomes a limit.
  const bad = [
    '',
    ' ',
    '0x10',
    '0b1',
    '0o7',
    '-1',
    '-0',
    '+5',
    '1.5',
    '5.',
    '1e3',
    'Infinity',
    'NaN',
    ' 5',
    '5 ',
    '5\n',
    '１２',
    '1_000',
    '1,000',
    'None',
    'null',
    '9007199254740993',
  ];
  for (const option of NUMBER_OPTIONS) {
    it(`--${option} takes plain decimal digits or none, nothing else`, () => {
      for (const value of bad)
        expect(
          usageMessage(() => parse(['--scope', 'global', `--${option}=${value}`])),
          JSON.stringify(value),
        ).toContain(`--${option}`);
      expect(parse(['--scope', 'global', `--${option}`, 'none'])?.changes).toEqual({ [camel(option)]: null });
      expect(parse(['--scope', 'global', `--${option}`, '05'])?.changes).toEqual({ [camel(option)]: 5 });
    });
  }

  it('keeps the ranges: 0 is a limit (pause at the first hit), anchor day 1-28, warning 1-100 percent', () => {
    expect(parse(['--scope', 'global', '--website-hits', '0', '--domain-limit', '0'])?.changes).toEqual({ websiteHits: 0, domainLimit: 0 });
    for (const value of ['0', '29'])
      expect(usageMessage(() => parse(['--scope', 'global', '--anchor-day', value]))).toContain('--anchor-day');
    for (const value of ['0', '101'])
      expect(usageMessage(() => parse(['--scope', 'global', '--warning-percent', value]))).toContain('--warning-percent');
    expect(parse(['--scope', 'global', '--anchor-day', '28', '--warning-percent', '100'])?.changes).toEqual({
      anchorDay: 28,
      warningPercent: 100,
    });
  });

  it('takes period and exempt words exactly, none clears them', () => {
    expect(parse(['--scope', 'global', '--period', 'daily', '--exempt', 'false'])?.changes).toEqual({ period: 'daily', exempt: false });
    expect(parse(['--scope', 'global', '--period', 'none', '--exempt', 'none'])?.changes).toEqual({ period: null, exempt: null });
    for (const args of [
      ['--period', 'Monthly'],
      ['--period', ''],
      ['--exempt', 'yes'],
      ['--exempt', ''],
    ])
      expect(() => parse(['--scope', 'global', ...args])).toThrow(UsageError);
  });

  it('names every problem in one message', () => {
    const message = usageMessage(() =>
      parse(['--scope', 'website', '--subject', 'not a domain', '--website-hits', '', '--warning-percent', '0x10', '--period', 'daily']),
    );
    expect(message.split('\n')).toHaveLength(4);
    for (const part of ['--subject', '--website-hits', '--warning-percent', '--period']) expect(message).toContain(part);
  });
});

describe('scope and subject', () => {
  it('normalises subjects the way enforcement looks them up', () => {
    expect(parse(['--scope', 'website', '--subject', 'Bücher.Example.', '--exempt', 'true'])).toMatchObject({
      scope: 'website',
      subject: 'xn--bcher-kva.example',
    });
    expect(parse(['--scope', 'account', '--subject', ' ALICE ', '--account-hits', '5'])).toMatchObject({
      scope: 'account',
      subject: 'alice',
    });
    expect(parse(['--scope', 'plan', '--subject', ' Gold ', '--domain-limit', '5'])).toMatchObject({ scope: 'plan', subject: 'Gold' });
    expect(parse(['--scope', 'global', '--website-hits', '5'])).toMatchObject({ scope: 'global', subject: '' });
  });

  it('asks whether the normalised subject is known, unless --allow-unknown', () => {
    const asked: string[] = [];
    const unknown = (scope: string, subject: string) => {
      asked.push(`${scope}:${subject}`);
      return false;
    };
    expect(usageMessage(() => parse(['--scope', 'website', '--subject', 'ONE.example', '--exempt', 'true'], unknown))).toMatch(
      /one\.example.*--allow-unknown/,
    );
    expect(asked).toEqual(['website:one.example']);
    expect(parse(['--scope', 'account', '--subject', 'Bob', '--website-hits', '5', '--allow-unknown'], unknown)).toMatchObject({
      subject: 'bob',
    });
    expect(asked).toHaveLength(1);
  });

  it('refuses what could not mean what the admin meant', () => {
    const refused: string[][] = [
      ['--website-hits', '5'], // no scope: silently did nothing
      ['--subject', 'alice'],
      ['--allow-unknown'],
      ['--scope', 'global', '--subject', 'alice', '--website-hits', '5'],
      ['--scope', 'global', '--website-hits', '5', '--allow-unknown'],
      ['--scope', 'account', '--website-hits', '5'],
      ['--scope', 'account', '--subject', 'alice'], // nothing to change
      ['--scope', 'account', '--subject', 'a b', '--website-hits', '5', '--allow-unknown'],
      ['--scope', 'plan', '--subject', ' ', '--website-hits', '5', '--allow-unknown'],
      ['--scope', 'user', '--subject', 'alice', '--website-hits', '5'],
      // The period is the account's: on a website it would be stored and never used.
      ['--scope', 'website', '--subject', 'one.example', '--period', 'daily'],
      ['--scope', 'website', '--subject', 'one.example', '--anchor-day', '3'],
      ['--scope', 'website', '--subject', 'one.example', '--account-hits', '3'],
      ['--scope', 'website', '--subject', 'one.example', '--domain-limit', '3'],
    ];
    for (const args of refused) expect(() => parse(args), args.join(' ')).toThrow(UsageError);
    expect(parse([])).toBeNull();
  });
});

describe('options given twice (every command is strict the same way)', () => {
  it('refuses a repeated option instead of keeping the last', () => {
    expect(
      usageMessage(() => readLimitsOptions(['--scope', 'global', '--website-hits', '5', '--account-hits', '9', '--website-hits', '6'])),
    ).toMatch(/--website-hits given 2 times/);
    expect(usageMessage(() => readLimitsOptions(['--scope=global', '--scope', 'global']))).toMatch(/--scope given 2 times/);
    expect(usageMessage(() => readLimitsOptions(['--allow-unknown', '--allow-unknown']))).toMatch(/--allow-unknown given 2 times/);
    expect(readLimitsOptions(['--scope', 'global', '--website-hits', '5'])).toMatchObject({ scope: 'global', 'website-hits': '5' });
  });
});

function camel(option: string): string {
  return option.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
