/**
 * The customers' provider API keys, encrypted at rest. AES-256-GCM with a key kept in a file
 * outside the database (WPP_KEY_FILE), so the database alone (a copy, a backup, a stolen
 * disk image of the data) does not give the keys away. The account name is bound in as
 * associated data: a value copied onto another account's row does not open.
 *
 * Losing the key file loses every stored key, so it is never replaced behind anyone's back:
 * it is created only while no encrypted value exists, and a missing or different key file
 * stops the plugin with a message saying which file to restore.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Db } from './open.js';
import { createPrivateFile, makePrivateDir, tightenPrivate, type Notice } from './files.js';

/** Sealed values start with their format's version, so a later format can be told apart. */
const PREFIX = 'v1:';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface KeyBox {
  seal(plain: string, account: string): string;
  /** Throws when the value was sealed with another key, for another account, or altered. */
  open(sealed: string, account: string): string;
}

export const isSealed = (value: string) => value.startsWith(PREFIX);

export class ApiKeyFileError extends Error {
  override readonly name = 'ApiKeyFileError';
  readonly code = 'CONFIG_INVALID';
}

export function createKeyBox(key: Buffer): KeyBox {
  if (key.length !== KEY_BYTES) throw new ApiKeyFileError(`an API-key key must be ${KEY_BYTES} bytes, not ${key.length}`);
  return {
    seal(plain, account) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(account, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    },
    open(sealed, account) {
      if (!isSealed(sealed)) throw new Error('not a sealed API key');
      const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
      if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('a sealed API key too short to be one');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES)).setAAD(Buffer.from(account, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}

function readKeyFile(file: string): Buffer {
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
  if (key.length !== KEY_BYTES) {
    throw new ApiKeyFileError(`${file} is not a wpp API-key key file (${KEY_BYTES} bytes, base64url): restore it from your backup`);
  }
  return key;
}

/**
 * Why `keyFile` cannot open the API keys in `db`, or null when it can (or nothing is sealed).
 * Reads only: `wpp restore` asks it of a backup before putting the backup in place.
 */
export function keyFileProblem(db: Db, keyFile: string): string | null {
  const probe = db.prepare<[], KeyRow>("SELECT account, provider_api_key FROM accounts WHERE provider_api_key LIKE 'v1:%' LIMIT 1").get();
  if (!probe) return null;
  if (!existsSync(keyFile)) return `its API keys are encrypted, and the key file ${keyFile} is missing: restore the key file first`;
  try {
    createKeyBox(readKeyFile(keyFile)).open(probe.provider_api_key, probe.account);
    return null;
  } catch {
    return `the key file ${keyFile} does not open its API keys (it is not the key they were encrypted with): restore the key file that belongs to it`;
  }
}

interface KeyRow {
  account: string;
  provider_api_key: string;
}

/**
 * The key box of this database, at the start of every process that reads or writes API
 * keys: creates the key file on first use, checks it opens what is stored, and encrypts
 * keys stored in plain text by a release before encryption (once, in one transaction).
 * Returns how many plain keys it encrypted.
 */
export function openApiKeys(db: Db, keyFile: string, notice: Notice): { keys: KeyBox; encrypted: number } {
  const stored = db.prepare<[], KeyRow>('SELECT account, provider_api_key FROM accounts WHERE provider_api_key IS NOT NULL').all();
  const sealed = stored.filter((row) => isSealed(row.provider_api_key));
  if (!existsSync(keyFile)) {
    if (sealed.length > 0) {
      throw new ApiKeyFileError(
        `the key file ${keyFile} is missing, and the database holds ${sealed.length} API key(s) encrypted with it. ` +
          'Restore the file from your backup (set WPP_KEY_FILE if it lives elsewhere); a new key cannot open them.',
      );
    }
    makePrivateDir(dirname(keyFile));
    createPrivateFile(keyFile, `${randomBytes(KEY_BYTES).toString('base64url')}\n`);
  }
  tightenPrivate(keyFile, notice);
  const keys = createKeyBox(readKeyFile(keyFile));
  const problem = keyFileProblem(db, keyFile);
  if (problem) throw new ApiKeyFileError(`the database's API keys cannot be read: ${problem}`);
  const plain = stored.filter((row) => !isSealed(row.provider_api_key));
  if (plain.length > 0) {
    const update = db.prepare('UPDATE accounts SET provider_api_key = ? WHERE account = ? AND provider_api_key = ?');
    db.transaction(() => {
      for (const row of plain) update.run(keys.seal(row.provider_api_key, row.account), row.account, row.provider_api_key);
    })();
  }
  return { keys, encrypted: plain.length };
}
