/**
 * `wpp plans` as an admin runs it: real processes. A plan set with the command is what the
 * websites of its accounts get at the provider; bad input is refused (exit 2, every problem
 * named) and changes nothing.
 */
import { userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import { createSettingsRepo } from '../../src/db/settings.repo.js';
import { runWpp } from '../helpers/cli.js';
import { testEnv, withPlugin } from '../helpers/plugin.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

/** Each `wpp` run is a process start (about a second on a busy 2-core machine). */
const PROCESSES = 60_000;

let dataDir: string;
const env = () => ({ WPP_DATA_DIR: dataDir, WPP_PANEL_SECRET: 'plans-cli-secret-0123456789', WPP_LOG_LEVEL: 'silent' });
const plans = (...args: string[]) => runWpp(['plans', ...args], { env: env() });
const plansTable = () => {
  const db = openPluginDatabase(loadConfig(env()));
  try {
    return db.prepare('SELECT * FROM plans ORDER BY name').all();
  } finally {
    db.close();
  }
};

const planChanges = (name: string) => {
  const db = openPluginDatabase(loadConfig(env()));
  try {
    return createSettingsRepo(db).listChanges({ what: `plan:${name}` });
  } finally {
    db.close();
  }
};

beforeAll(() => {
  dataDir = createTempDir('wpp-plans-cli-');
});
afterAll(() => removeTempDir(dataDir));

describe('wpp plans', () => {
  it(
    'lists the built-in default, then sets a plan; options not given keep their value',
    async () => {
      expect(await plans()).toMatchObject({ code: 0, stdout: 'default (built in)\tsubdomains=www\tmonitor-days=0\tsettings={}\n' });
      const set = await plans(
        'set',
        ' gold ',
        '--settings',
        '{"rules":{"humans":"captcha"},"rulesets":{"wordpress":true}}',
        '--subdomains',
        'www, Shop,www',
      );
      expect(set.code).toBe(0);
      expect(set.stdout).toContain(
        'gold\tsubdomains=www,shop\tmonitor-days=0\tsettings={"rules":{"humans":"captcha"},"rulesets":{"wordpress":true}}',
      );
      expect((await plans('set', 'gold', '--subdomains', 'none')).code).toBe(0);
      expect((await plans()).stdout).toBe(
        'default (built in)\tsubdomains=www\tmonitor-days=0\tsettings={}\ngold\tsubdomains=(none)\tmonitor-days=0\tsettings={"rules":{"humans":"captcha"},"rulesets":{"wordpress":true}}\n',
      );
    },
    PROCESSES,
  );

  it(
    'refuses bad input with exit 2, naming every problem, and changes nothing',
    async () => {
      const before = plansTable();
      const cases: [string[], RegExp][] = [
        [['set', 'gold', '--settings', '{rules:'], /--settings: is not JSON/],
        [['set', 'gold', '--settings', '{"rules":{"humanz":"deny"}}'], /--settings.rules: .*humanz/],
        [
          ['set', 'gold', '--settings', '{"rules":{"humans":"maybe"}}', '--subdomains', 'bad_label!'],
          /--settings.rules.humans: [\s\S]*--subdomains/,
        ],
        [['set', 'gold'], /give --settings, --subdomains or --monitor-days/],
        [['set', ' ', '--subdomains', 'www'], /<name>: the plan name is empty/],
        [['set', 'gold', '--subdomains', 'www', '--subdomains', 'shop'], /--subdomains given 2 times/],
      ];
      for (const [args, message] of cases) {
        const run = await plans(...args);
        expect(run.code, args.join(' ')).toBe(2);
        expect(run.stderr, args.join(' ')).toMatch(message);
      }
      expect(plansTable()).toEqual(before);
    },
    PROCESSES,
  );
});

describe('a plan set with wpp plans', () => {
  it(
    'is what a new website of an account on it gets at the provider',
    async () => {
      await withPlugin(async (plugin, sb) => {
        const set = await runWpp(
          [
            'plans',
            'set',
            'silver',
            '--settings',
            '{"rules":{"content_scrapers":"deny"},"loadbalancer":{"cache_dynamic_pages":true}}',
            '--subdomains',
            'www,shop',
          ],
          {
            env: testEnv(plugin.dataDir, sb),
          },
        );
        expect(set.code).toBe(0);
        await plugin.postEvents([
          { type: 'account.created', account: 'sam', plan: 'silver' },
          { type: 'domain.added', account: 'sam', domain: 'sam.example', ip: '198.51.100.7' },
        ]);
        await plugin.idle();
        const website = await sb.control<{
          subdomain: string[];
          settings: { rules: Record<string, string>; loadbalancer: Record<string, unknown> };
        }>('GET', '/v1.0/website/sam.example');
        expect(website.subdomain).toEqual(['www', 'shop']);
        expect(website.settings.rules.content_scrapers).toBe('deny');
        expect(website.settings.loadbalancer.cache_dynamic_pages).toBe(true);
      });
    },
    PROCESSES,
  );
});

describe('wpp plans set: who changed what', () => {
  it(
    'records each change of a plan as cli:<os user>, with the plan before and after',
    async () => {
      expect((await plans('set', 'audited', '--subdomains', 'www,blog')).code).toBe(0);
      expect((await plans('set', 'audited', '--subdomains', 'shop')).code).toBe(0);
      expect(planChanges('audited').map(({ actor, before, after }) => ({ actor, before, after }))).toEqual([
        {
          actor: `cli:${userInfo().username}`,
          before: { name: 'audited', settings: {}, subdomains: ['www', 'blog'], monitorDays: 0 },
          after: { name: 'audited', settings: {}, subdomains: ['shop'], monitorDays: 0 },
        },
        {
          actor: `cli:${userInfo().username}`,
          before: null,
          after: { name: 'audited', settings: {}, subdomains: ['www', 'blog'], monitorDays: 0 },
        },
      ]);
    },
    PROCESSES,
  );
});
