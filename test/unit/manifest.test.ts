import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig, SETTING_DEFAULTS, SETTING_NAMES } from '../../src/config.js';
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

  it('lists every setting of the config schema, with its default, and no other', () => {
    expect(manifest.settings.map((setting) => setting.key)).toEqual(SETTING_NAMES);
    const stated = manifest.settings.filter((setting) => setting.default !== undefined).map((setting) => [setting.key, setting.default]);
    expect(Object.fromEntries(stated)).toEqual(SETTING_DEFAULTS);
  });

  it('gives each setting the type the config schema reads', () => {
    const machine = { hostname: 'web1', primaryIp: undefined };
    const accepts = (key: string, value: string) =>
      expect(() => loadConfig({ [key]: value }, machine, 'standalone'), `${key}=${value}`).not.toThrow();
    const refuses = (key: string, value: string) =>
      expect(() => loadConfig({ [key]: value }, machine, 'standalone'), `${key}=${value}`).toThrow(key);
    for (const setting of manifest.settings) {
      for (const value of setting.enum ?? []) accepts(setting.key, value);
      if (setting.enum) refuses(setting.key, 'none-of-these');
      if (setting.type === 'integer') {
        accepts(setting.key, '7');
        refuses(setting.key, '7.5');
      }
      if (setting.type === 'boolean') {
        accepts(setting.key, 'false');
        refuses(setting.key, 'maybe');
      }
      if (setting.type === 'url') {
        accepts(setting.key, 'https://plugin.example');
        refuses(setting.key, 'ftp://plugin.example');
      }
    }
  });

  it('lists only settings the README documents', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const setting of manifest.settings) expect(readme, setting.key).toContain(setting.key);
  });
});
