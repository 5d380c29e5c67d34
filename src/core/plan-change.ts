/**
 * The rules of one change to a hosting plan, shared by `wpp plans set` and the admin Settings
 * page: the plan's name, its provider settings patch (JSON, checked against the API's schema),
 * its subdomains (comma-separated, `none` for no subdomain) and its days of monitoring first. A part not given keeps its
 * value. Every problem is keyed by the field it is about, with the path inside it, so each
 * front end words it its own way; nothing is stored unless every field is right.
 */
import { z } from 'zod';
import { settingsPatchSchema, subdomainListSchema, type SettingsPatch } from '../provider/spec.js';
import { monitorDaysSchema } from './monitoring.js';

export const planNameSchema = z.string().trim().min(1, 'the plan name is empty').max(100, 'the plan name is at most 100 characters');

const jsonSettings = z.string().transform((text, ctx) => {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `is not JSON (${error instanceof Error ? error.message : String(error)})` });
    return z.NEVER;
  }
});

const valuesSchema = z.object({
  settings: jsonSettings.pipe(settingsPatchSchema).optional(),
  subdomains: z
    .string()
    .transform((text) => (text.trim() === 'none' ? [] : text.split(',').map((label) => label.trim())))
    .pipe(subdomainListSchema)
    .optional(),
  monitorDays: monitorDaysSchema.optional(),
});

/** What was typed or submitted; undefined: not given (keeps the plan's value). */
export interface PlanInput {
  name: string;
  settings?: string | undefined;
  subdomains?: string | undefined;
  /** Days of monitoring before protecting, as typed. */
  monitorDays?: string | undefined;
}

export type PlanField = 'name' | 'settings' | 'subdomains' | 'monitorDays';

export interface PlanProblem {
  /** The field to show it next to; null: the change as a whole (nothing to change). */
  field: PlanField | null;
  /** Where inside the field's value (e.g. ['rules', 'humans'] of the settings); empty for the field itself. */
  path: PropertyKey[];
  message: string;
}

export interface PlanChange {
  name: string;
  settings?: SettingsPatch | undefined;
  subdomains?: string[] | undefined;
  monitorDays?: number | undefined;
}

export type PlanChangeResult = { ok: true; change: PlanChange } | { ok: false; problems: PlanProblem[] };

/** Reads one plan change; problems in a stable order: the name, the values, then "nothing to change". */
export function parsePlanChange(input: PlanInput): PlanChangeResult {
  const problems: PlanProblem[] = [];
  const name = planNameSchema.safeParse(input.name);
  if (!name.success) problems.push(...name.error.issues.map((issue) => ({ field: 'name' as const, path: [], message: issue.message })));
  const values = valuesSchema.safeParse({ settings: input.settings, subdomains: input.subdomains, monitorDays: input.monitorDays });
  if (!values.success)
    problems.push(...values.error.issues.map(({ path: [field, ...path], message }) => ({ field: field as PlanField, path, message })));
  if (values.success && Object.values(values.data).every((value) => value === undefined))
    problems.push({ field: null, path: [], message: 'nothing to change: give the settings, the subdomains or the days of monitoring' });
  if (problems.length > 0 || !name.success || !values.success) return { ok: false, problems };
  return { ok: true, change: { name: name.data, ...values.data } };
}
