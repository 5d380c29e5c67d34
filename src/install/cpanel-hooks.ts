/**
 * Standardized Hooks registered through cPanel's manage_hooks: `add script <path>` makes
 * manage_hooks run the script with --describe and register every hook it lists. What is
 * registered is read with WHM API 1 `list_hooks`, which gives each hook the id WHM knows it by,
 * and each hook is removed by that id (`delete_hook id=`): never by matching its category,
 * event, stage and script, which would also take a hook another vendor registered the same way,
 * and does not depend on the script still describing what was registered.
 */
import { z } from 'zod';
import type { RegistrationArtefact, ToolCall } from './artefacts.js';
import { fingerprintOf } from './common.js';
import { WHMAPI1 } from '../panel/listings/whmapi.js';
import type { ToolRunner } from './tools.js';

export const MANAGE_HOOKS = '/usr/local/cpanel/bin/manage_hooks';

/** One hook as manage_hooks keys it: a script at a stage of a category's event. */
export interface ScriptHook {
  category: string;
  event: string;
  stage: string;
  hook: string;
}

/** A registered hook with the id WHM gave it. */
export interface ListedHook extends ScriptHook {
  id: string;
}

/**
 * `whmapi1 --output=json list_hooks` (WHM API 1 "Return script hooks list"):
 * data.categories[] of {category, events[] of {event, stages[] of {stage, actions[] of {id, hook, ...}}}}.
 */
const listHooksSchema = z.looseObject({
  metadata: z.looseObject({ result: z.union([z.number(), z.string()]), reason: z.string().optional() }),
  data: z
    .looseObject({
      categories: z.array(
        z.looseObject({
          category: z.string(),
          events: z.array(
            z.looseObject({
              event: z.string(),
              stages: z.array(
                z.looseObject({
                  stage: z.string(),
                  actions: z.array(z.looseObject({ id: z.string().min(1), hook: z.string() })).default([]),
                }),
              ),
            }),
          ),
        }),
      ),
    })
    .nullish(),
});

/** Every hook registered on the server, whoever registered it, with its id. */
export async function listedHooks(tools: ToolRunner): Promise<ListedHook[]> {
  const { stdout } = await tools.check(WHMAPI1, ['--output=json', 'list_hooks']);
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    throw new Error(`${WHMAPI1} list_hooks did not print JSON`);
  }
  const parsed = listHooksSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${WHMAPI1} list_hooks printed an unexpected shape: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  if (Number(parsed.data.metadata.result) !== 1) {
    throw new Error(`${WHMAPI1} list_hooks failed: ${parsed.data.metadata.reason ?? 'no reason given'}`);
  }
  return (parsed.data.data?.categories ?? []).flatMap(({ category, events }) =>
    events.flatMap(({ event, stages }) =>
      stages.flatMap(({ stage, actions }) => actions.map(({ id, hook }) => ({ category, event, stage, hook, id }))),
    ),
  );
}

const sameHook = (a: ScriptHook, b: ScriptHook) =>
  a.category === b.category && a.event === b.event && a.stage === b.stage && a.hook === b.hook;
const label = (hook: ScriptHook) => `${hook.category}::${hook.event} (${hook.stage})`;

/** Removes one hook by its id (WHM API 1 "Delete script hook"). */
export const deleteCall = (hook: ListedHook): ToolCall => ({ tool: WHMAPI1, args: ['--output=json', 'delete_hook', `id=${hook.id}`] });

/**
 * The hooks `script --describe` lists, registered with `manage_hooks add script`. In place only
 * when list_hooks shows every one of them (a cPanel update or an admin can drop some). The
 * record keeps the ids list_hooks gave them; uninstall deletes those.
 */
export function scriptHooks(key: string, script: string, expected: ScriptHook[], scriptContent: string): RegistrationArtefact {
  const missingFrom = (listed: ScriptHook[]) => expected.filter((hook) => !listed.some((l) => sameHook(l, hook)));
  return {
    kind: 'registration',
    key,
    describe: `${key}: ${expected.length} hook(s) (${MANAGE_HOOKS} add script ${script})`,
    fingerprint: fingerprintOf(expected, scriptContent),
    async register(tools) {
      // manage_hooks skips what is already there, so adding again only fills the gaps.
      await tools.check(MANAGE_HOOKS, ['add', 'script', script]);
      const listed = await listedHooks(tools);
      const missing = missingFrom(listed);
      if (missing.length > 0) {
        throw new Error(`${MANAGE_HOOKS} add script ${script} did not register ${missing.map(label).join(', ')}`);
      }
      // An upgrade that drops a hook from the list: its old registration goes too (by its id).
      for (const stale of listed.filter((l) => l.hook === script && !expected.some((hook) => sameHook(l, hook)))) {
        const call = deleteCall(stale);
        await tools.check(call.tool, call.args);
      }
      const ours = listed.filter((l) => expected.some((hook) => sameHook(l, hook)));
      return { ids: ours.map((hook) => hook.id), undo: ours.map(deleteCall) };
    },
    async isInPlace(tools) {
      return missingFrom(await listedHooks(tools)).length === 0;
    },
  };
}
