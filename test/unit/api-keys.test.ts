import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccountsRepo } from '../../src/db/accounts.repo.js';
import { createKeyBox, isSealed, openApiKeys } from '../../src/db/api-keys.js';
import { openMigratedDatabase, type Db } from '../../src/db/open.js';
import { paths } from '../../src/paths.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const quiet = () => undefined;
const account = (name: string, key: string | null) => ({
  account: name,
  email: null,
  plan: null,
  providerUserId: `${name}@test`,
  providerApiKey: key,
  state: 'active' as const,
});

describe('the API-key box', () => {
  const box = createKeyBox(randomBytes(32));

  it('seals a key so that only the same key and account open it', () => {
    const sealed = box.seal('user-key-123', 'alice');
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain('user-key-123');
    expect(box.open(sealed, 'alice')).toBe('user-key-123');
    // Another nonce each time: equal keys do not show as equal values.
    expect(box.seal('user-key-123', 'alice')).not.toBe(sealed);
    expect(() => box.open(sealed, 'bob')).toThrow();
    expect(() => createKeyBox(randomBytes(32)).open(sealed, 'alice')).toThrow();
    // A character in the middle: every one of its bits counts (the last character's low bits are padding).
    const at = Math.floor(sealed.length / 2);
    const tampered = sealed.slice(0, at) + (sealed[at] === 'A' ? 'Q' : 'A') + sealed.slice(at + 1);
    expect(() => box.open(tampered, 'alice')).toThrow();
  });

  it('refuses a key of the wrong size', () => {
    expect(() => createKeyBox(randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('openApiKeys on a database', () => {
  let dir: string;
  let db: Db;
  const keyFile = () => join(dir, 'api-keys.key');
  beforeEach(() => {
    dir = createTempDir();
    db = openMigratedDatabase(join(dir, 'plugin.sqlite'), paths.migrations);
  });
  afterEach(() => {
    db.close();
    removeTempDir(dir);
  });
  const storedKey = (name: string) =>
    (db.prepare('SELECT provider_api_key AS k FROM accounts WHERE account = ?').get(name) as { k: string | null }).k;

  it('creates an owner-only key file on first use, and stores keys sealed that read back plain', () => {
    const { keys, encrypted } = openApiKeys(db, keyFile(), quiet);
    expect(encrypted).toBe(0);
    expect(statSync(keyFile()).mode & 0o777).toBe(0o600);
    const accounts = createAccountsRepo(db, Date.now, keys);
    accounts.saveAccount(account('alice', 'alice-secret-key'));
    expect(storedKey('alice')).toMatch(/^v1:/);
    expect(storedKey('alice')).not.toContain('alice-secret-key');
    expect(accounts.getAccount('alice')?.providerApiKey).toBe('alice-secret-key');
    // Without the box (hooks, plans): no key read, and none stored.
    const keyless = createAccountsRepo(db);
    expect(keyless.getAccount('alice')?.providerApiKey).toBeNull();
    expect(() => keyless.saveAccount(account('bob', 'bob-key'))).toThrow(/key box/);
    keyless.saveAccount(account('alice', null));
    expect(accounts.getAccount('alice')?.providerApiKey).toBe('alice-secret-key');
  });

  it("encrypts a previous release's plain keys once, and a second start finds none", () => {
    const insert = db.prepare(
      "INSERT INTO accounts (account, provider_user_id, provider_api_key, state, created_at, updated_at) VALUES (?, ?, ?, 'active', 0, 0)",
    );
    insert.run('carol', 'carol@test', 'carol-plain-key');
    insert.run('dave', 'dave@test', null);
    const first = openApiKeys(db, keyFile(), quiet);
    expect(first.encrypted).toBe(1);
    expect(storedKey('carol')).toMatch(/^v1:/);
    expect(storedKey('dave')).toBeNull();
    expect(openApiKeys(db, keyFile(), quiet).encrypted).toBe(0);
    expect(createAccountsRepo(db, Date.now, first.keys).getAccount('carol')?.providerApiKey).toBe('carol-plain-key');
  });

  it('stops, changing nothing, when the key file is missing or another one', () => {
    const { keys } = openApiKeys(db, keyFile(), quiet);
    createAccountsRepo(db, Date.now, keys).saveAccount(account('alice', 'alice-secret-key'));
    const sealed = storedKey('alice');
    const original = readFileSync(keyFile(), 'utf8');

    removeTempDir(keyFile());
    expect(() => openApiKeys(db, keyFile(), quiet)).toThrow(/is missing.*1 API key\(s\) encrypted with it.*Restore the file/);
    expect(existsSync(keyFile())).toBe(false); // never a new key that cannot open the old ones

    writeFileSync(keyFile(), `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
    expect(() => openApiKeys(db, keyFile(), quiet)).toThrow(/does not open its API keys/);
    writeFileSync(keyFile(), 'not a key\n', { mode: 0o600 });
    expect(() => openApiKeys(db, keyFile(), quiet)).toThrow(/not a wpp API-key key file/);
    expect(storedKey('alice')).toBe(sealed);

    writeFileSync(keyFile(), original, { mode: 0o600 });
    expect(createAccountsRepo(db, Date.now, openApiKeys(db, keyFile(), quiet).keys).getAccount('alice')?.providerApiKey).toBe(
      'alice-secret-key',
    );
  });
});
