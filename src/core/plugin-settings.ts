/**
 * Settings an admin changes at runtime (the admin Settings page of issue 9): auto-protect and
 * the notification URL, each an override stored in the database over its WPP_* value, read at
 * every use so a change applies in every process of the data folder without a restart. Plans
 * are changed here too. Every change is recorded with who made it (settings_changes), in the
 * transaction of the change; a change that changes nothing stores nothing and records nothing.
 *
 * The notification URL has three states: no override (WPP_NOTIFY_URL applies, or nothing when
 * it is unset), an override URL, or an override null: notifications off although the
 * environment sets a URL. `resetSetting` removes the override, back to the environment's.
 */
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { SettingOverride, SettingsRepo } from '../db/settings.repo.js';
import { AppError } from '../errors.js';
import type { SettingsPatch } from '../provider/spec.js';
import { DEFAULT_PACKAGE_GRACE_DAYS } from './package-protection.js';
import type { Plan } from './types.js';

const actorSchema = z.string().trim().min(1, 'who makes the change is required').max(200);

/** Each runtime setting by its stored name, with the schema of an admin's value (null for notify_url: off). */
export const RUNTIME_SETTINGS = {
  auto_protect: z.boolean({ error: 'must be true or false' }),
  notify_url: z
    .string()
    .trim()
    // Absolute http(s) only, and stored as WPP_NOTIFY_URL is (config.ts), so the two compare equal.
    .pipe(z.url({ protocol: /^https?$/, message: 'must be an absolute http(s) URL' }))
    .transform((value) => value.replace(/\/+$/, ''))
    .nullable(),
  /** Days a package that lost web protection keeps its websites paused before they are removed at the provider (core/package-protection.ts). */
  package_grace_days: z
    .number({ error: 'must be a whole number of days' })
    .int('must be a whole number of days')
    .min(0, 'must be 0 or more')
    .max(365, 'must be at most 365'),
} as const;

export type RuntimeSettingName = keyof typeof RUNTIME_SETTINGS;
export type RuntimeSettingValue<N extends RuntimeSettingName> = z.output<(typeof RUNTIME_SETTINGS)[N]>;

/** The environment's values (config.autoProtect, config.notifyUrl): what applies without an override. */
export interface RuntimeSettingDefaults {
  autoProtect: boolean;
  notifyUrl?: string | undefined;
  /** No environment setting: DEFAULT_PACKAGE_GRACE_DAYS unless given. */
  packageGraceDays?: number | undefined;
}

export interface RuntimeSettings {
  autoProtect: boolean;
  /** Where enforcement actions are sent; null: notifications are off. */
  notifyUrl: string | null;
}

/** One setting's change: `changed` false when the effective value stayed (then nothing was stored). */
export interface SettingChange<N extends RuntimeSettingName = RuntimeSettingName> {
  name: N;
  before: RuntimeSettingValue<N>;
  after: RuntimeSettingValue<N>;
  changed: boolean;
}

const validationError = (what: string, error: z.ZodError, path = what) =>
  new AppError(
    'VALIDATION_FAILED',
    `${what}: ${error.issues.map((issue) => issue.message).join('; ')}`,
    error.issues.map((issue) => ({ path: [path, ...issue.path].join('.'), message: issue.message })),
  );

/** Who makes a change, as recorded: required, trimmed. */
export function checkedActor(actor: string): string {
  const parsed = actorSchema.safeParse(actor);
  if (!parsed.success) throw validationError('actor', parsed.error);
  return parsed.data;
}

/** The runtime settings on one database: effective values (override ?? environment) and their changes. */
export function createPluginSettings(repo: SettingsRepo, defaults: RuntimeSettingDefaults) {
  const fromEnvironment: { [N in RuntimeSettingName]: RuntimeSettingValue<N> } = {
    auto_protect: defaults.autoProtect,
    notify_url: defaults.notifyUrl ?? null,
    package_grace_days: defaults.packageGraceDays ?? DEFAULT_PACKAGE_GRACE_DAYS,
  };
  /** The override if it still reads as its setting's value (a hand-edited row that does not is ignored), else the environment's. */
  function effective<N extends RuntimeSettingName>(name: N): RuntimeSettingValue<N> {
    const override = repo.getOverride(name);
    const parsed = override ? RUNTIME_SETTINGS[name].safeParse(override.value) : undefined;
    return parsed?.success ? (parsed.data as RuntimeSettingValue<N>) : fromEnvironment[name];
  }
  function apply<N extends RuntimeSettingName>(name: N, actor: string, write: () => void): SettingChange<N> {
    return repo.writeTransaction(() => {
      const before = effective(name);
      write();
      const after = effective(name);
      const changed = !isDeepStrictEqual(before, after);
      if (changed) repo.recordChange(actor, name, before, after);
      return { name, before, after, changed };
    });
  }

  return {
    autoProtect: (): boolean => effective('auto_protect'),
    notifyUrl: (): string | null => effective('notify_url'),
    packageGraceDays: (): number => effective('package_grace_days'),
    current: (): RuntimeSettings => ({ autoProtect: effective('auto_protect'), notifyUrl: effective('notify_url') }),
    /** Each setting's override (who set it, when), or null where the environment's value applies: for the Settings page. */
    overrides: (): Record<RuntimeSettingName, SettingOverride | null> => ({
      auto_protect: repo.getOverride('auto_protect'),
      notify_url: repo.getOverride('notify_url'),
      package_grace_days: repo.getOverride('package_grace_days'),
    }),
    /**
     * Sets a setting over the environment's, checked with its schema (VALIDATION_FAILED, nothing
     * stored, when it does not read). Stores nothing when the effective value would not change.
     */
    changeSetting<N extends RuntimeSettingName>(name: N, value: unknown, actor: string): SettingChange<N> {
      const who = checkedActor(actor);
      const schema = RUNTIME_SETTINGS[name] as z.ZodType | undefined;
      if (!schema) throw new AppError('VALIDATION_FAILED', `${String(name)} is not a runtime setting`);
      const parsed = schema.safeParse(value);
      if (!parsed.success) throw validationError(name, parsed.error);
      return apply(name, who, () => {
        if (!isDeepStrictEqual(effective(name), parsed.data)) repo.setOverride(name, parsed.data, who);
      });
    },
    /** Back to the environment's value; recorded when that changes the effective value. */
    resetSetting<N extends RuntimeSettingName>(name: N, actor: string): SettingChange<N> {
      const who = checkedActor(actor);
      return apply(name, who, () => void repo.removeOverride(name));
    },
  };
}

export type PluginSettings = ReturnType<typeof createPluginSettings>;

/** What a plan gets before anyone sets it: the provider's defaults and the `www` subdomain (as provisioning falls back). */
export const BUILT_IN_PLAN: Omit<Plan, 'name'> = { settings: {}, subdomains: ['www'], monitorDays: 0 };

/** The audit name of a plan. */
export const planWhat = (name: string): string => `plan:${name}`;

/**
 * Creates or changes a plan: the parts given replace the plan's (a missing plan starts from
 * BUILT_IN_PLAN), read and written under the write lock with its audit row. The values must
 * have been checked already (provider/spec.ts settingsPatchSchema, subdomainListSchema).
 * `accounts` and `audit` must be repositories of one database.
 */
export function changePlan(
  deps: { accounts: AccountsRepo; audit: SettingsRepo },
  change: { name: string; settings?: SettingsPatch | undefined; subdomains?: string[] | undefined; monitorDays?: number | undefined },
  actor: string,
): { before: Plan | null; after: Plan; recorded: boolean } {
  const who = checkedActor(actor);
  return deps.audit.writeTransaction(() => {
    const before = deps.accounts.getPlan(change.name);
    deps.accounts.savePlan({
      ...(before ?? { name: change.name, ...BUILT_IN_PLAN }),
      ...(change.settings ? { settings: change.settings } : {}),
      ...(change.subdomains ? { subdomains: change.subdomains } : {}),
      ...(change.monitorDays !== undefined ? { monitorDays: change.monitorDays } : {}),
    });
    const after = deps.accounts.getPlan(change.name) as Plan;
    const recorded = !isDeepStrictEqual(before, after);
    if (recorded) deps.audit.recordChange(who, planWhat(change.name), before, after);
    return { before, after, recorded };
  });
}
