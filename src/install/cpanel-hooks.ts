/**
 * Standardized Hooks registered through cPanel's manage_hooks: `add script <path>` makes
 * manage_hooks run the script with --describe and register every hook it lists. Each hook is
 * removed on its own (`delete script <path> --manual --category= --event= --stage=`), so
 * uninstall does not depend on the script still describing what was registered.
 */
import { z } from 'zod';
import type { RegistrationArtefact, ToolCall } from './artefacts.js';
import { fingerprintOf } from './common.js';
import type { ToolRunner } from './tools.js';

export const MANAGE_HOOKS = '/usr/local/cpanel/bin/manage_hooks';

/** One hook as manage_hooks keys it: a script at a stage of a category's event. */
export interface ScriptHook {
  category: string;
  event: string;
  stage: string;
  hook: string;
}

/** `manage_hooks list --output JSON`: {category: {event: [{hook, stage, exectype, id, ...}]}}. */
const hookListSchema = z.record(z.string(), z.record(z.string(), z.array(z.looseObject({ hook: z.string(), stage: z.string() }))));

/** Every hook registered on the server, whoever registered it. */
export async function listedHooks(tools: ToolRunner): Promise<ScriptHook[]> {
  const { stdout } = await tools.check(MANAGE_HOOKS, ['list', '--output', 'JSON']);
  let parsed: unknown;
  try {
    parsed = stdout.trim() === '' ? {} : JSON.parse(stdout);
  } catch {
    throw new Error(`${MANAGE_HOOKS} list --output JSON did not print JSON`);
  }
  const list = hookListSchema.parse(parsed);
  return Object.entries(list).flatMap(([category, events]) =>
    Object.entries(events).flatMap(([event, hooks]) => hooks.map(({ hook, stage }) => ({ category, event, stage, hook }))),
  );
}

const sameHook = (a: ScriptHook, b: ScriptHook) =>
  a.category === b.category && a.event === b.event && a.stage === b.stage && a.hook === b.hook;
const label = (hook: ScriptHook) => `${hook.category}::${hook.event} (${hook.stage})`;

const deleteCall = (hook: ScriptHook): ToolCall => ({
  tool: MANAGE_HOOKS,
  args: ['delete', 'script', hook.hook, '--manual', `--category=${hook.category}`, `--event=${hook.event}`, `--stage=${hook.stage}`],
});

/**
 * The hooks `script --describe` lists, registered with `manage_hooks add script`. In place only
 * when manage_hooks lists every one of them (a cPanel update or an admin can drop some).
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
      // An upgrade that drops a hook from the list: its old registration goes too.
      for (const stale of listed.filter((l) => l.hook === script && !expected.some((hook) => sameHook(l, hook)))) {
        const call = deleteCall(stale);
        await tools.check(call.tool, call.args);
      }
      return { key, describe: this.describe, fingerprint: this.fingerprint, ids: [], undo: expected.map(deleteCall) };
    },
    async isInPlace(tools) {
      return missingFrom(await listedHooks(tools)).length === 0;
    },
  };
}
