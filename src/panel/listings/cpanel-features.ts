/**
 * Whether a cPanel package includes web protection: the Feature Manager feature
 * `wpp_web_protection` (PROTECTION_FEATURE, src/panel/protection-feature.ts; install_plugin creates it from the
 * install.json item's `featuremanager`). An account's features come from its package's feature
 * list (`FEATURELIST=` in /var/cpanel/packages/<package>, the list's `<feature>=0|1` lines in
 * /var/cpanel/features/<list>); a feature the list does not name is on, unless the list turns it
 * off. Read through WHM API 1, as the listing already reads accounts and domains:
 * - `whmapi1 --output=json listpkgs`: `data.pkg[]`, each with `name` and `FEATURELIST`
 *   ("Hosting Plans > listpkgs", the same fields as the package file);
 * - `whmapi1 --output=json get_featurelist_data featurelist=<list>`: `data.features[]`, each
 *   `{id, value: 0|1, is_disabled: 0|1}` (api.docs.cpanel.net, "Return feature list
 *   configuration"; the issue's `get_feature_list_data` is spelled `get_featurelist_data` there).
 *   `is_disabled` 1: turned off for every package by the "disabled" list.
 */
import { z } from 'zod';
import type { ToolRunner } from '../../install/tools.js';
import { PROTECTION_FEATURE } from '../protection-feature.js';
import { metadataSchema, parseWhmapi, WHMAPI1 } from './whmapi.js';

const flag = z.union([z.number(), z.string()]).transform((value) => Number(value) === 1);

const listpkgsSchema = z.looseObject({
  metadata: metadataSchema,
  data: z.looseObject({ pkg: z.array(z.looseObject({ name: z.string().min(1), FEATURELIST: z.string().optional() })) }).optional(),
});

const featurelistSchema = z.looseObject({
  metadata: metadataSchema,
  data: z
    .looseObject({
      features: z.array(z.looseObject({ id: z.string().min(1), value: flag.optional(), is_disabled: flag.optional() })),
    })
    .optional(),
});

/** A call's data: parseWhmapi refuses an answer without it. */
const parse = <S extends z.ZodType<{ data?: unknown }>>(schema: S, stdout: string, call: string) =>
  parseWhmapi(schema, stdout, call).data as NonNullable<z.output<S>['data']>;

/** Each package's feature list (`default` when the package names none, as cPanel reads it). */
export function packageFeatureLists(listpkgsJson: string): Map<string, string> {
  const { pkg } = parse(listpkgsSchema, listpkgsJson, 'listpkgs');
  return new Map(pkg.map((p) => [p.name, p.FEATURELIST?.trim() || 'default']));
}

/** Whether a feature list gives the feature: on unless the list sets it to 0 or the "disabled" list turns it off. */
export function listIncludesProtection(featurelistJson: string, list: string): boolean {
  const { features } = parse(featurelistSchema, featurelistJson, `get_featurelist_data featurelist=${list}`);
  const feature = features.find((f) => f.id === PROTECTION_FEATURE);
  if (!feature) return true;
  return feature.is_disabled !== true && feature.value !== false;
}

/** Whether one feature list gives the feature, from its own whmapi1 answer. */
async function readListProtection(tools: ToolRunner, list: string): Promise<boolean> {
  const { stdout } = await tools.check(WHMAPI1, ['--output=json', 'get_featurelist_data', `featurelist=${list}`]);
  return listIncludesProtection(stdout, list);
}

const readFeatureLists = async (tools: ToolRunner) =>
  packageFeatureLists((await tools.check(WHMAPI1, ['--output=json', 'listpkgs'])).stdout);

/** Every package and whether it includes web protection, each feature list read once. */
export async function readCpanelPackages(tools: ToolRunner): Promise<{ name: string; protection: boolean }[]> {
  const lists = await readFeatureLists(tools);
  const byList = new Map<string, boolean>();
  for (const list of new Set(lists.values())) byList.set(list, await readListProtection(tools, list));
  return [...lists].map(([name, list]) => ({ name, protection: byList.get(list) ?? true }));
}

/**
 * One package's protection, for a hook (Accounts::Create, change_package): the package's feature
 * list from listpkgs, then that one list (not every package's). undefined: cPanel does not know
 * the package. listpkgs rather than `getpkginfo pkg=<name>`: its answer, and how it says a
 * package does not exist, are known from the recorded listing, getpkginfo's from no capture.
 */
export async function cpanelPackageProtection(tools: ToolRunner, plan: string): Promise<boolean | undefined> {
  const list = (await readFeatureLists(tools)).get(plan);
  return list === undefined ? undefined : readListProtection(tools, list);
}
