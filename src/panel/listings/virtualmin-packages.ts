/**
 * Protection per package on Virtualmin, for `wpp import virtualmin` (the hooks read the same
 * field: adapters/virtualmin.ts). wpp is a Virtualmin feature ("Web Protection",
 * virtual_feature.pl), kept in each server's record as `wpp=1` / `wpp=0`:
 * - list-domains' Features value names it when it is on (list-domains.pl prints the record's
 *   enabled features and plugins);
 * - off is only in the record (/etc/webmin/virtual-server/domains/<id>, `key=value` lines): a
 *   record without the field (a server made before wpp was a feature) says nothing, never "no";
 * - the plans (`virtualmin list-plans --json`: the object's name is the plan's id, as
 *   list-plans.pl prints it first; `allowed_features` is its "Allowed features" line, the
 *   plan's feature limits or "Automatic") include it when their allowed features name wpp. A plan
 *   on "Automatic" limits nothing and so says nothing: it is not listed.
 * Read in Virtualmin GPL 8.1.0's sources (list-domains.pl, list-plans.pl, json-lib.pl,
 * create-domain.pl); list-plans' output and a record with the field were not captured.
 * Packages are named by the plan's id: the change command only has the id (VIRTUALSERVER_PLAN),
 * so the hooks and the listing name a package alike.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

const VIRTUALMIN_FEATURE = 'wpp';
export const VIRTUALMIN_DOMAINS_DIR = '/etc/webmin/virtual-server/domains';

/** Whether a list-domains Features value names the wpp feature. */
export function featuresInclude(features: string | undefined): boolean {
  return (features ?? '').split(/\s+/).includes(VIRTUALMIN_FEATURE);
}

/** The record's `wpp=` line: 1 yes, 0 no; absent or another value, not said. */
export function recordProtection(record: string): boolean | undefined {
  const line = record.split('\n').find((l) => l.startsWith(`${VIRTUALMIN_FEATURE}=`));
  const value = line?.slice(VIRTUALMIN_FEATURE.length + 1).trim();
  return value === '1' ? true : value === '0' ? false : undefined;
}

/** Every server record's feature, by server id; none when the folder cannot be read. */
export async function readRecordProtection(domainsDir: string): Promise<Map<string, boolean>> {
  const found = new Map<string, boolean>();
  const ids = await readdir(domainsDir).catch(() => [] as string[]);
  for (const id of ids) {
    if (!/^\d+$/.test(id)) continue;
    const record = await readFile(join(domainsDir, id), 'utf8').catch(() => '');
    const protection = recordProtection(record);
    if (protection !== undefined) found.set(id, protection);
  }
  return found;
}

const listPlansSchema = z.object({
  status: z.string(),
  data: z
    .array(z.object({ name: z.string().trim().min(1).max(100), values: z.record(z.string(), z.array(z.string())) }))
    .optional()
    .default([]),
});

/** list-plans' JSON as packages: each plan with allowed features of its own, by id; none when it is not that JSON. */
export function parseVirtualminPlans(text: string): { name: string; protection: boolean }[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return [];
  }
  const parsed = listPlansSchema.safeParse(json);
  if (!parsed.success || parsed.data.status !== 'success') return [];
  return parsed.data.data.flatMap(({ name, values }) => {
    const allowed = values.allowed_features?.[0]?.trim();
    if (allowed === undefined || allowed === '' || allowed === 'Automatic') return [];
    return [{ name, protection: featuresInclude(allowed) }];
  });
}
