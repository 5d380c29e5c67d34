/**
 * The rules of one change to a hosting plan, shared by `wpp plans set` and the admin Settings
 * page: the plan's name, its provider settings patch (JSON, checked against the API's schema),
 * its subdomains (comma-separated, `none` for no subdomain) and its days of monitoring first. A part not given keeps its
 * value. Every problem is keyed by the field it is about, with the path inside it, so each
 * front end words it its own way; nothing is stored unless every field is right.
 */
import { z } from 'zod';
import { settingsPatchSchema, subdomainListSchema, type SettingsPatch } from '../provider/spec.js';
import type { Translate } from './i18n.js';
import { monitorDaysMessage, monitorDaysSchema } from './monitoring.js';

/** A plan's name; its problems in the reader's language (`t`: the page's, or English for the CLI). */
export const planNameSchema = (t: Translate) => z.string().trim().min(1, t('planChange.nameEmpty')).max(100, t('planChange.nameTooLong'));

const jsonSettings = (t: Translate) =>
  z.string().transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: t('planChange.notJson', { error: error instanceof Error ? error.message : String(error) }) });
      return z.NEVER;
    }
  });

const valuesSchema = (t: Translate) =>
  z.object({
    settings: jsonSettings(t).pipe(settingsPatchSchema).optional(),
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

/**
 * Reads one plan change; problems in a stable order: the name, the values, then "nothing to
 * change", worded by `t` (the page's language; English for the CLI).
 */
export function parsePlanChange(input: PlanInput, t: Translate): PlanChangeResult {
  const problems: PlanProblem[] = [];
  const name = planNameSchema(t).safeParse(input.name);
  if (!name.success) problems.push(...name.error.issues.map((issue) => ({ field: 'name' as const, path: [], message: issue.message })));
  const values = valuesSchema(t).safeParse({ settings: input.settings, subdomains: input.subdomains, monitorDays: input.monitorDays });
  if (!values.success)
    problems.push(
      ...values.error.issues.map((issue) => {
        const [field, ...path] = issue.path;
        const message = field === 'monitorDays' ? monitorDaysMessage(issue, t) : issue.message;
        return { field: field as PlanField, path, message };
      }),
    );
  if (values.success && Object.values(values.data).every((value) => value === undefined))
    problems.push({ field: null, path: [], message: t('planChange.nothingToChange') });
  if (problems.length > 0 || !name.success || !values.success) return { ok: false, problems };
  return { ok: true, change: { name: name.data, ...values.data } };
}
