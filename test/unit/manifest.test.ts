import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { manifestSchema } from '../../src/manifest.js';

const read = (name: string) => JSON.parse(readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

describe('plugin.json', () => {
  const manifest = manifestSchema.parse(read('plugin.json'));

  it('carries the package version and points at files that exist', () => {
    expect(manifest.version).toBe(read('package.json').version);
    for (const entry of Object.values(manifest.entryPoints)) {
      if (/^(GET|POST|PUT) \//.test(entry)) continue;
      const file = entry.split(' ')[0] ?? '';
      expect(existsSync(new URL(`../../${file}`, import.meta.url)), entry).toBe(true);
    }
  });

  it('lists only settings the README documents', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const setting of manifest.settings) expect(readme, setting.key).toContain(setting.key);
  });
});
