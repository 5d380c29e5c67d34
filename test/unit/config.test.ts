import { describe, expect, it } from 'vitest';
import { closestSetting, loadConfig } from '../../src/config.js';
import { providerUserIdFor } from '../../src/core/identity.js';
import { isAppError } from '../../src/errors.js';

const machine = { hostname: 'web1', primaryIp: '198.51.100.4' };

describe('loadConfig', () => {
  it('fills documented defaults and the embedded sandbox when no provider is set', () => {
    const config = loadConfig({}, machine);
    expect(config).toMatchObject({
      provider: { embedded: true, sandboxPort: 8081 },
      host: '127.0.0.1',
      port: 8080,
      publicUrl: undefined,
      server: { ip: '198.51.100.4', name: 'web1' },
      accountDomain: 'web1.wpp.invalid',
      autoProtect: true,
      worker: { concurrency: 8, maxAttempts: 10, leaseMs: 120_000 },
      logLevel: 'info',
    });
    expect(config.databaseFile).toMatch(/data\/plugin\.sqlite$/);
    expect(loadConfig({}, { hostname: 'x', primaryIp: undefined }).server.ip).toBe('127.0.0.1');
  });

  it('reads booleans as words, not as truthy strings', () => {
    expect(loadConfig({ WPP_AUTO_PROTECT: 'false' }, machine).autoProtect).toBe(false);
    expect(loadConfig({ WPP_AUTO_PROTECT: 'off' }, machine).autoProtect).toBe(false);
    expect(loadConfig({ WPP_AUTO_PROTECT: 'yes' }, machine).autoProtect).toBe(true);
  });

  it('treats empty variables as unset and ignores other variables', () => {
    expect(loadConfig({ WPP_PORT: '', PATH: '/bin' }, machine).port).toBe(8080);
  });

  it('names every bad variable in one error', () => {
    let error: unknown;
    try {
      loadConfig(
        { WPP_PORT: 'eighty', WPP_PROVIDER_URL: 'ftp://x', WPP_AUTO_PROTECT: 'maybe', WPP_SERVER_IP: '1.2.3', WPP_PANEL_SECRET: 'short' },
        machine,
      );
    } catch (caught) {
      error = caught;
    }
    expect(isAppError(error, 'CONFIG_INVALID')).toBe(true);
    const message = (error as Error).message;
    for (const key of ['WPP_PORT', 'WPP_PROVIDER_URL', 'WPP_AUTO_PROTECT', 'WPP_SERVER_IP', 'WPP_PANEL_SECRET'])
      expect(message).toContain(key);
  });

  it('takes WPP_NOTIFY_SECRET only when it is long enough and not the panel secret, and never repeats it in an error', () => {
    expect(loadConfig({ WPP_NOTIFY_SECRET: 'receiver-secret-0123456789' }, machine).notifySecret).toBe('receiver-secret-0123456789');
    expect(loadConfig({}, machine).notifySecret).toBeUndefined();
    expect(() => loadConfig({ WPP_NOTIFY_SECRET: 'short' }, machine)).toThrow(/WPP_NOTIFY_SECRET: must be at least 16 characters/);
    const shared = 'one-secret-for-two-jobs-0123456789';
    let error: unknown;
    try {
      loadConfig({ WPP_PANEL_SECRET: shared, WPP_NOTIFY_SECRET: shared }, machine);
    } catch (caught) {
      error = caught;
    }
    expect(isAppError(error, 'CONFIG_INVALID')).toBe(true);
    expect(String(error)).toContain('WPP_NOTIFY_SECRET: must differ from WPP_PANEL_SECRET');
    expect(JSON.stringify(error) + String(error)).not.toContain(shared);
  });

  it('needs the partner key with a provider URL, and never puts the key in an error', () => {
    expect(() => loadConfig({ WPP_PROVIDER_URL: 'https://api.provider.example' }, machine)).toThrow(/WPP_PROVIDER_API_KEY: is required/);
    const config = loadConfig({ WPP_PROVIDER_URL: 'https://api.provider.example/', WPP_PROVIDER_API_KEY: 'k-123' }, machine);
    expect(config.provider).toEqual({ url: 'https://api.provider.example', apiKey: 'k-123' });
    expect(config.server.ip).toBe('198.51.100.4');
    try {
      loadConfig({ WPP_PROVIDER_URL: 'https://api.provider.example', WPP_PROVIDER_API_KEY: 'secret-key-value', WPP_PORT: 'x' }, machine);
    } catch (error) {
      expect(JSON.stringify(error) + String(error)).not.toContain('secret-key-value');
    }
  });
});

describe('settings of the hook and sandbox commands', () => {
  it('posts hooks to WPP_HOOK_URL, else WPP_PUBLIC_URL, else the listen address', () => {
    expect(loadConfig({}, machine).hook.url).toBe('http://127.0.0.1:8080');
    expect(loadConfig({ WPP_HOST: '10.0.0.5', WPP_PORT: '9000' }, machine).hook.url).toBe('http://10.0.0.5:9000');
    expect(loadConfig({ WPP_PUBLIC_URL: 'https://plugin.example/' }, machine).hook.url).toBe('https://plugin.example');
    expect(loadConfig({ WPP_PUBLIC_URL: 'https://plugin.example', WPP_HOOK_URL: 'http://127.0.0.1:8080/' }, machine).hook.url).toBe(
      'http://127.0.0.1:8080',
    );
    expect(() => loadConfig({ WPP_HOOK_URL: 'plugin.example' }, machine)).toThrow(/WPP_HOOK_URL: must be an http\(s\) URL/);
  });

  it('names the cPanel hook script by an absolute path', () => {
    expect(loadConfig({}, machine).hook.cpanelCommand).toBe('/usr/local/cpanel/3rdparty/bin/wpp-hook-cpanel');
    expect(loadConfig({ WPP_CPANEL_HOOK_COMMAND: '/opt/wpp/hook' }, machine).hook.cpanelCommand).toBe('/opt/wpp/hook');
    expect(() => loadConfig({ WPP_CPANEL_HOOK_COMMAND: 'wpp-hook' }, machine)).toThrow(/WPP_CPANEL_HOOK_COMMAND: must be an absolute path/);
  });

  it('lets a standalone command run without the partner key, still checking every value', () => {
    const env = { WPP_PROVIDER_URL: 'https://api.provider.example', WPP_LOG_LEVEL: 'warn', WPP_DATA_DIR: '/srv/wpp' };
    const config = loadConfig(env, machine, 'standalone');
    expect(config).toMatchObject({ logLevel: 'warn', dataDir: '/srv/wpp' });
    expect(config).not.toHaveProperty('provider');
    expect(() => loadConfig({ ...env, WPP_LOG_LEVEL: 'loud' }, machine, 'standalone')).toThrow(/WPP_LOG_LEVEL/);
  });
});

describe('unknown WPP_* variables', () => {
  it('are warnings naming the closest setting, never errors', () => {
    expect(loadConfig({ WPP_SYNC_INTERVAL: '10' }, machine).warnings).toEqual([
      'WPP_SYNC_INTERVAL is not a setting of wpp; did you mean WPP_SYNC_INTERVAL_MINUTES?',
    ]);
    expect(
      loadConfig({ WPP_LOGLEVEL: 'debug', WPP_PANEL_SECRT: 'a-secret-value-0123456789', WPP_COLOUR: 'blue', WPP_PORT: '' }, machine)
        .warnings,
    ).toEqual([
      'WPP_LOGLEVEL is not a setting of wpp; did you mean WPP_LOG_LEVEL?',
      'WPP_PANEL_SECRT is not a setting of wpp; did you mean WPP_PANEL_SECRET?',
      'WPP_COLOUR is not a setting of wpp',
    ]);
    expect(loadConfig({ WPP_SYNC_INTERVAL: '', PATH: '/bin', WPP_PORT: '81' }, machine).warnings).toEqual([]);
  });

  it('prefer a setting containing the name over one fewer edits away', () => {
    expect(closestSetting('WPP_SYNC_INTERVAL')).toBe('WPP_SYNC_INTERVAL_MINUTES');
    expect(closestSetting('WPP_API_KEY')).toBe('WPP_PROVIDER_API_KEY');
    expect(closestSetting('WPP_PROVIDER_KEY')).toBe('WPP_PROVIDER_API_KEY');
    // One letter off WPP_HOST_NAME (the host's name in mails, issue 22): that typo wins over the containment of WPP_HOST.
    expect(closestSetting('WPP_HOSTNAME')).toBe('WPP_HOST_NAME');
    expect(closestSetting('WPP_DEBUG')).toBeUndefined();
  });

  it('are named in a configuration error, where they are the likely cause', () => {
    expect(() => loadConfig({ WPP_PROVIDER_URL: 'https://api.provider.example', WPP_PROVIDER_APIKEY: 'k-123' }, machine)).toThrow(
      /WPP_PROVIDER_API_KEY: is required[^]*WPP_PROVIDER_APIKEY is not a setting of wpp; did you mean WPP_PROVIDER_API_KEY\?/,
    );
  });
});

describe('providerUserIdFor', () => {
  it('maps a panel account to a stable, e-mail-shaped id', () => {
    expect(providerUserIdFor('alice', 'panel.example')).toBe('alice@panel.example');
    expect(providerUserIdFor('Alice', 'panel.example')).toBe('alice@panel.example');
    expect(providerUserIdFor('john.doe', 'panel.example')).toBe('john.doe@panel.example');
  });

  it('never maps two accounts to one id', () => {
    const accounts = ['a@b', 'a+40b', 'a+b', 'a.b', '.ab', 'ab.', 'a..b', 'a_b', 'a-b'];
    const ids = accounts.map((account) => providerUserIdFor(account, 'p.example'));
    expect(new Set(ids).size).toBe(accounts.length);
    expect(ids[0]).toBe('a+40b@p.example');
    for (const id of ids) expect(id).toMatch(/^[a-z0-9._+-]+@p\.example$/);
  });

  it('keeps the local part within 64 characters, still unique', () => {
    const long = 'x'.repeat(100);
    const id = providerUserIdFor(long, 'p.example');
    expect(id.split('@')[0]?.length).toBeLessThanOrEqual(64);
    expect(providerUserIdFor(`${long}y`, 'p.example')).not.toBe(id);
  });
});

describe('the usage settings: WPP_UPGRADE_URL and WPP_TIME_ZONE', () => {
  it('keeps an upgrade URL template naming {account} or {domain}, and refuses one that is no http(s) URL', () => {
    const template = 'https://host.example/upgrade?account={account}&domain={domain}';
    expect(loadConfig({ WPP_UPGRADE_URL: template }, machine).pages.upgradeUrl).toBe(template);
    expect(loadConfig({}, machine).pages.upgradeUrl).toBeUndefined();
    expect(() => loadConfig({ WPP_UPGRADE_URL: 'host.example/upgrade' }, machine)).toThrow(
      /WPP_UPGRADE_URL: must be an http\(s\) URL, with \{account\} and \{domain\} where the host wants them/,
    );
    expect(() => loadConfig({ WPP_UPGRADE_URL: 'javascript:alert({account})' }, machine)).toThrow(/WPP_UPGRADE_URL/);
  });

  it("takes the panel's time zone from WPP_TIME_ZONE, else the server's own unless it is UTC, and refuses an unknown zone", () => {
    expect(loadConfig({ WPP_TIME_ZONE: 'Europe/Berlin' }, machine).pages.timeZone).toBe('Europe/Berlin');
    expect(loadConfig({}, { ...machine, timeZone: 'America/New_York' }).pages.timeZone).toBe('America/New_York');
    expect(loadConfig({}, { ...machine, timeZone: 'UTC' }).pages.timeZone).toBeUndefined();
    expect(loadConfig({}, { ...machine, timeZone: 'Etc/UTC' }).pages.timeZone).toBeUndefined();
    expect(loadConfig({}, machine).pages.timeZone).toBeUndefined();
    expect(() => loadConfig({ WPP_TIME_ZONE: 'Mars/Olympus' }, machine)).toThrow(/WPP_TIME_ZONE: must be an IANA time zone/);
  });
});
