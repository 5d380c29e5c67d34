/**
 * The plugin's secrets, one per purpose, so that whoever holds one can do that one thing only:
 *
 * - the hook secret (WPP_PANEL_SECRET, else `panel-secret`): signs panel events sent to
 *   POST /hooks/events. Non-root hook senders may be given it; it signs nothing else.
 * - the sign-in key (`sign-in-key`): signs and verifies launch tokens. Only in the data folder
 *   (root's, 0700): never an environment variable, never printed, never derived from another
 *   secret, so only a process that can read the data folder can sign someone in.
 * - the callback key (`callback-key`): derives the token in each website's callback URL.
 * - the notification secret (WPP_NOTIFY_SECRET, else `notify-secret`): signs what the plugin
 *   sends to WPP_NOTIFY_URL. The receiver holds it, so it must sign nothing the plugin trusts.
 *
 * Generated files hold 32 random bytes (base64url), are created owner-only (0600) whatever the
 * umask, and whole: two processes creating one at once agree on the first (files.ts).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StandaloneConfig } from './config.js';
import { createPrivateFile, makePrivateDir } from './db/files.js';
import { AppError } from './errors.js';

export const SIGN_IN_KEY_FILE = 'sign-in-key';
export const CALLBACK_KEY_FILE = 'callback-key';
export const NOTIFY_SECRET_FILE = 'notify-secret';

/** Shorter than this, a secret file was emptied or cut: refused, as an empty HMAC key is no key at all. */
const MIN_SECRET_LENGTH = 16;

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * The secret in `dataDir/name`, generated on first use. Errors name the file and what to do,
 * never its content.
 */
export function readOrCreateSecretFile(dataDir: string, name: string): string {
  const file = join(dataDir, name);
  let secret: string;
  try {
    if (!existsSync(file)) {
      makePrivateDir(dataDir);
      // When another process created it first, theirs is used.
      createPrivateFile(file, `${randomBytes(32).toString('base64url')}\n`);
    }
    secret = readFileSync(file, 'utf8').trim();
  } catch (error) {
    if (errorCode(error) === 'EACCES' || errorCode(error) === 'EPERM') {
      throw new AppError(
        'FORBIDDEN',
        `${file} may not be read by this user (uid ${process.getuid?.() ?? '?'}): run wpp as the owner of ${dataDir} (root when installed)`,
        [],
        { cause: error },
      );
    }
    throw error;
  }
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new AppError(
      'CONFIG_INVALID',
      `${file} holds no usable secret (under ${MIN_SECRET_LENGTH} characters): remove it, and wpp generates a new one`,
    );
  }
  return secret;
}

/** The key launch tokens are signed and verified with; only ever from the data folder. */
export const readSignInKey = (dataDir: string) => readOrCreateSecretFile(dataDir, SIGN_IN_KEY_FILE);

/** The key callback URL tokens are derived from (core/identity.ts). */
export const readCallbackKey = (dataDir: string) => readOrCreateSecretFile(dataDir, CALLBACK_KEY_FILE);

/** Where the notification secret comes from: the administrator's WPP_NOTIFY_SECRET, or generated (and shown on the Settings page). */
export interface NotifySecret {
  value: string;
  source: 'environment' | 'generated';
}

export function readNotifySecret(config: Pick<StandaloneConfig, 'notifySecret' | 'dataDir'>): NotifySecret {
  if (config.notifySecret) return { value: config.notifySecret, source: 'environment' };
  return { value: readOrCreateSecretFile(config.dataDir, NOTIFY_SECRET_FILE), source: 'generated' };
}

/** Each of the plugin's secrets, read (or generated) once at start. */
export interface PluginSecrets {
  /** Verifies panel events (POST /hooks/events): WPP_PANEL_SECRET or `panel-secret`. */
  hook: string;
  signIn: string;
  callback: string;
  notify: NotifySecret;
}

export function readPluginSecrets(config: Pick<StandaloneConfig, 'notifySecret' | 'dataDir'>, hookSecret: string): PluginSecrets {
  const notify = readNotifySecret(config);
  // loadConfig refuses WPP_NOTIFY_SECRET = WPP_PANEL_SECRET; this also catches the generated panel-secret file.
  if (notify.value === hookSecret) {
    throw new AppError('CONFIG_INVALID', 'WPP_NOTIFY_SECRET must differ from the panel secret (each secret has one purpose)');
  }
  return {
    hook: hookSecret,
    signIn: readSignInKey(config.dataDir),
    callback: readCallbackKey(config.dataDir),
    notify,
  };
}
