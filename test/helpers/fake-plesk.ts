/**
 * A stateful fake /usr/sbin/plesk for installer tests: `bin event_handler --create/--list/--delete`
 * keep the handlers in a file below the test root and list them in the block format of a real
 * Plesk (Id, Name, Priority, User, Command lines, as captured from Plesk Obsidian 18.0.78 in
 * public tools); `bin extension --register/--uninstall/--list` keep the registered extensions.
 * What --create prints is not documented; this prints a line with the id, which the installer
 * does not rely on (it reads the id from --list). `event_handler --list-events` prints the
 * recorded list of test/fixtures/panels/plesk/event-handler-list-events.txt (one event per
 * line, its name then its description), or, with `events`, those names in that format.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeTool } from './fake-tools.js';

/** Files the fake keeps below the root: ignore them in filesBelow. */
export const FAKE_PLESK_STATE = ['/.plesk-handlers', '/.plesk-next-id', '/.plesk-extensions', '/.plesk-events'];

const EVENT_LIST = new URL('../fixtures/panels/plesk/event-handler-list-events.txt', import.meta.url);

export interface ForeignHandler {
  id: number;
  event: string;
  command: string;
}

export function fakePlesk(root: string, foreign: ForeignHandler[] = [], options: { events?: readonly string[] } = {}): void {
  const events = options.events
    ? options.events.map((event) => `${event.padEnd(32)} ${event.replaceAll('_', ' ')}\n`).join('')
    : readFileSync(EVENT_LIST, 'utf8');
  writeFileSync(join(root, '.plesk-events'), events);
  writeFileSync(join(root, '.plesk-handlers'), foreign.map((h) => `${h.id}\t${h.event}\t10\troot\t${h.command}\n`).join(''));
  writeFileSync(join(root, '.plesk-next-id'), `${Math.max(0, ...foreign.map((h) => h.id)) + 1}\n`);
  writeFileSync(join(root, '.plesk-extensions'), '');
  fakeTool(root, '/usr/sbin/plesk', {
    script: String.raw`
handlers="$FAKE_ROOT/.plesk-handlers"
extensions="$FAKE_ROOT/.plesk-extensions"
tab=$(printf '\t')
[ "$1" = bin ] || { echo "fake plesk: only 'plesk bin ...'" >&2; exit 1; }
case "$2 $3" in
  "event_handler --create")
    shift 3
    command= event= priority= user=
    while [ "$#" -gt 1 ]; do
      case "$1" in -command) command=$2 ;; -event) event=$2 ;; -priority) priority=$2 ;; -user) user=$2 ;; esac
      shift 2
    done
    id=$(cat "$FAKE_ROOT/.plesk-next-id")
    printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$event" "$priority" "$user" "$command" >> "$handlers"
    echo $((id + 1)) > "$FAKE_ROOT/.plesk-next-id"
    echo "SUCCESS: Event handler $id was created"
    ;;
  "event_handler --list")
    while IFS="$tab" read -r id event priority user command; do
      printf '   Id               %s\n   Name             %s\n   Priority         %s\n   User             %s\n   Command          %s\n\n' \
        "$id" "$event" "$priority" "$user" "$command"
    done < "$handlers"
    ;;
  "event_handler --list-events") cat "$FAKE_ROOT/.plesk-events" ;;
  "event_handler --delete")
    grep -q "^$4$tab" "$handlers" || { echo "Unable to find event handler with id $4" >&2; exit 1; }
    grep -v "^$4$tab" "$handlers" > "$handlers.new" || true
    mv "$handlers.new" "$handlers"
    ;;
  "extension --register") echo "$4" >> "$extensions" ;;
  "extension --uninstall")
    grep -qx "$4" "$extensions" || { echo "The extension $4 is not installed" >&2; exit 1; }
    grep -vx "$4" "$extensions" > "$extensions.new" || true
    mv "$extensions.new" "$extensions"
    ;;
  "extension --list")
    echo "panel-migrator            Plesk Migrator           2.26.0-1"
    echo "wpp-reports               Someone's WPP Reports    1.0.0-1"
    while read -r id; do echo "$id                       Web Protection           0.1.0-1"; done < "$extensions"
    ;;
  *) echo "fake plesk: unexpected $*" >&2; exit 1 ;;
esac
`,
  });
}

/** The handlers the fake holds now: [id, event, priority, user, command]. */
export function pleskHandlers(root: string): string[][] {
  return readFileSync(join(root, '.plesk-handlers'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'));
}
