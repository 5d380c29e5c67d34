/** A file the package ships under panels/, with its {{PLACEHOLDERS}} filled, as an installer writes it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { paths } from '../paths.js';

/**
 * `relative` is below panels/ (e.g. `directadmin/plugin.conf`). A placeholder without a value
 * is a mistake in the shipped file, not something to install: it throws, naming the file.
 */
export function shippedFile(relative: string, values: Record<string, string>): string {
  return readFileSync(join(paths.panelFiles, relative), 'utf8').replace(/\{\{(\w+)\}\}/g, (match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`panels/${relative}: no value for ${match}`);
    return value;
  });
}
