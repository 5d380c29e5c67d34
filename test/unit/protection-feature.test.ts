/**
 * Protection per package has one name in every panel (src/panel/protection-feature.ts); the
 * Plesk extension's own file writes its part as a literal, and Plesk puts the extension's id in
 * front of it: together they must be that name, or wpp would read a permission no plan has.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROTECTION_FEATURE } from '../../src/panel/protection-feature.js';
import { paths } from '../../src/paths.js';

describe('the package protection switch', () => {
  it("is the Plesk extension's permission id with the extension's id in front", () => {
    const plesk = join(paths.root, 'panels', 'plesk');
    const extensionId = /<id>([^<]+)<\/id>/.exec(readFileSync(join(plesk, 'meta.xml'), 'utf8'))?.[1];
    const permissions = readFileSync(join(plesk, 'plib', 'hooks', 'Permissions.php'), 'utf8');
    const ids = [...permissions.matchAll(/^\s*'([a-z_]+)' => \[/gm)].map((match) => `${extensionId}_${match[1]}`);
    expect(ids).toEqual([PROTECTION_FEATURE]);
  });
});
