/**
 * `wpp plans`: the provider settings and subdomains each hosting plan gives its websites.
 * A website gets its plan's settings when it is created, and again when its account changes
 * plan (plan.changed); an account without a plan, or on a plan with no row, gets `default`.
 */
import { Command } from 'commander';
import { englishTranslate } from './english.js';
import { DEFAULT_PLAN } from '../core/provisioning.js';
import type { Plan } from '../core/types.js';
import { parsePlanChange, type PlanChange, type PlanProblem } from '../core/plan-change.js';
import { shareWithFleet } from './fleet-share.js';
import { BUILT_IN_PLAN, changePlan } from '../core/plugin-settings.js';
import { createAccountsRepo, type AccountsRepo } from '../db/accounts.repo.js';
import { openPluginDatabase } from '../db/plugin-database.js';
import { createSettingsRepo, type SettingsRepo } from '../db/settings.repo.js';
import { cliActor, configFromEnv, optionValues, UsageError } from './shared.js';

const describePlan = (plan: Plan, note = '') =>
  `${plan.name}${note}\tsubdomains=${plan.subdomains.join(',') || '(none)'}\tmonitor-days=${plan.monitorDays}\tsettings=${JSON.stringify(plan.settings)}`;

function withAccounts<T>(fn: (accounts: AccountsRepo, audit: SettingsRepo) => T): T {
  const db = openPluginDatabase(configFromEnv());
  try {
    return fn(createAccountsRepo(db), createSettingsRepo(db));
  } finally {
    db.close();
  }
}

function runPlans(): void {
  withAccounts((accounts) => {
    const plans = accounts.listPlans();
    if (!plans.some((plan) => plan.name === DEFAULT_PLAN))
      console.log(describePlan({ name: DEFAULT_PLAN, ...BUILT_IN_PLAN }, ' (built in)'));
    for (const plan of plans) console.log(describePlan(plan));
  });
}

/** A problem as `wpp plans set` has always worded it: by its <name> argument and --options. */
function usageLine(problem: PlanProblem): string {
  if (problem.field === null) return 'give --settings, --subdomains or --monitor-days: options not given keep their value';
  if (problem.field === 'name') return `<name>: ${problem.message}`;
  if (problem.field === 'monitorDays') return `--monitor-days: ${problem.message}`;
  return `--${[problem.field, ...problem.path].map(String).join('.')}: ${problem.message}`;
}

/** Checks every option first (one message names each problem, nothing changes), then saves the plan, recorded with the OS user. */
async function runPlansSet(name: string, raw: Record<string, unknown>): Promise<void> {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const result = parsePlanChange(
    {
      name,
      settings: text(raw.settings),
      subdomains: text(raw.subdomains),
      monitorDays: text(raw['monitor-days']),
    },
    englishTranslate(),
  );
  if (!result.ok) throw new UsageError(result.problems.map(usageLine).join('\n'));
  if (raw.fleet === true) {
    await sharePlan(result.change);
    return;
  }
  withAccounts((accounts, audit) => {
    const { after } = changePlan({ accounts, audit }, result.change, cliActor());
    console.log(describePlan(after));
    console.log(APPLIES);
  });
}

const APPLIES = 'Applies to websites added from now on, and to every website of an account when it changes plan.';

/** `--fleet`: stored for every server first, then applied here from the fleet database (cli/fleet-share.ts). */
async function sharePlan(change: PlanChange): Promise<void> {
  const config = configFromEnv();
  const db = openPluginDatabase(config);
  try {
    console.log(await shareWithFleet(config, db, { kind: 'plan', change }, cliActor()));
    const after = createAccountsRepo(db).getPlan(change.name);
    if (after) console.log(describePlan(after));
    console.log(APPLIES);
  } finally {
    db.close();
  }
}

export const plansCommand = () => {
  const plans = new Command('plans')
    .description('list the hosting plans: the provider settings and subdomains each gives new websites')
    .enablePositionalOptions()
    .action(() => runPlans());
  plans
    .command('set')
    .description('create a plan or change it; options not given keep their value')
    .argument('<name>', 'the plan as the panel names it (default: accounts without a plan)')
    .option(
      '--settings <json>',
      'provider settings the websites get, replacing the plan\'s: {"rules":{...},"rulesets":{...},"loadbalancer":{...}}, checked against the API',
    )
    .option('--subdomains <list>', 'subdomains a new website gets, comma-separated (www,shop), or none')
    .option(
      '--monitor-days <days>',
      'days a new website is monitored (watched, nothing blocked) before it is protected; 0: at once (0 to 90)',
    )
    .option(
      '--fleet',
      'change it on every server of the fleet (WPP_FLEET_DATABASE_URL): stored in the fleet database, then applied here and by every other server',
    )
    .action(async (name: string, _options, command: Command) => runPlansSet(name, optionValues(command)));
  return plans;
};
