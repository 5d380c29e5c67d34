/**
 * cPanel's tools, faked at the paths cPanel keeps them below a test root: a stateful
 * manage_hooks, whmapi1's list_hooks/delete_hook over the same registry, and
 * install_plugin/uninstall_plugin (node scripts in test/fixtures/fake-cpanel),
 * and the AppConfig tools (sh). Each logs its call like every fake tool (toolCalls).
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeTool } from './fake-tools.js';

const fixtures = new URL('../fixtures/fake-cpanel/', import.meta.url).pathname;
const repo = new URL('../..', import.meta.url).pathname;

/** Files the fakes keep below the root: the hooks registry (the panel's state) and the test launcher. */
export const FAKE_CPANEL_FILES = ['/.cpanel-hooks.json', '/.test-launcher'];

/**
 * A stand-in for /usr/local/lib/wpp/wpp: runs this repository's CLI from the sources. An
 * `install` is pointed at the test root, as the real launcher's would go to /.
 */
export function testLauncher(root: string): string {
  const file = join(root, '.test-launcher');
  writeFileSync(
    file,
    [
      '#!/bin/sh',
      `cd '${repo}' || exit 1`,
      `if [ "$1" = install ] || [ "$1" = uninstall ]; then exec node --import tsx src/cli.ts "$@" --root '${root}'; fi`,
      'exec node --import tsx src/cli.ts "$@"',
      '',
    ].join('\n'),
  );
  chmodSync(file, 0o755);
  return file;
}

export function fakeCpanelTools(root: string): void {
  const launcher = testLauncher(root);
  const node = (fixture: string, ...first: string[]) =>
    `FAKE_ROOT="$FAKE_ROOT" FAKE_LAUNCHER='${launcher}' exec node '${fixtures}${fixture}' ${first.join(' ')} "$@"`;
  fakeTool(root, '/usr/local/cpanel/bin/manage_hooks', { script: node('manage-hooks.mjs') });
  fakeTool(root, '/usr/local/cpanel/bin/whmapi1', { script: node('whmapi1.mjs') });
  fakeTool(root, '/usr/local/cpanel/scripts/install_plugin', { script: node('install-plugin.mjs', 'install') });
  fakeTool(root, '/usr/local/cpanel/scripts/uninstall_plugin', { script: node('install-plugin.mjs', 'uninstall') });
  const apps = '"$FAKE_ROOT/var/cpanel/apps"';
  fakeTool(root, '/usr/local/cpanel/bin/register_appconfig', {
    script: [
      'conf="$FAKE_ROOT$1"',
      `[ -f "$conf" ] || { echo "The 'conf_file' must be readable and a plain file."; exit 1; }`,
      'name=$(sed -n "s/^name=//p" "$conf")',
      'grep -q "^service=whostmgr$" "$conf" && grep -q "^url=/" "$conf" && grep -q "^acls=." "$conf" || { echo "not a valid appconfig file"; exit 1; }',
      `mkdir -p ${apps} && cp "$conf" ${apps}/"$name.conf" && echo "$name registered"`,
    ].join('\n'),
  });
  fakeTool(root, '/usr/local/cpanel/bin/unregister_appconfig', { script: `rm ${apps}/"$1.conf" && echo "$1 unregistered"` });
  fakeTool(root, '/usr/local/cpanel/bin/is_registered_with_appconfig', {
    script: `if [ -f ${apps}/"$2.conf" ]; then printf 1; else printf 0; fi`,
  });
}

/** The ids the fake manage_hooks gave the hooks of `hook` (a script path). */
export function registeredHookIds(root: string, hook: string): string[] {
  const file = join(root, '.cpanel-hooks.json');
  if (!existsSync(file)) return [];
  const db = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, { hook: string; id: string }[]>>;
  return Object.values(db).flatMap((events) =>
    Object.values(events).flatMap((hooks) => hooks.filter((h) => h.hook === hook).map((h) => h.id)),
  );
}

/** The hooks the fake manage_hooks holds: "Category::Event stage hook" lines, sorted. */
export function registeredHooks(root: string): string[] {
  const file = join(root, '.cpanel-hooks.json');
  if (!existsSync(file)) return [];
  const db = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, { stage: string; hook: string }[]>>;
  return Object.entries(db)
    .flatMap(([category, events]) =>
      Object.entries(events).flatMap(([event, hooks]) => hooks.map((h) => `${category}::${event} ${h.stage} ${h.hook}`)),
    )
    .sort();
}
