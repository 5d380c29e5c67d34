/**
 * Whose DirectAdmin session is this? The plugin's pages never run as root on DirectAdmin
 * (recent versions refuse `*_run_as=root`), so the page cannot sign anyone in itself: it hands
 * the session DirectAdmin gave it (SESSION_ID, SESSION_KEY) to the running plugin, which asks
 * DirectAdmin's own API and believes only DirectAdmin's answer.
 *
 * The question is `GET /CMD_API_SHOW_USER_CONFIG` with the session replayed as the cookie
 * `session=<id>; key=<key>` (how DirectAdmin's HTTPSocket class and its plugins use a session)
 * and nothing naming a user: DirectAdmin answers with the session's own user.conf, url-encoded,
 * whose `username` and `usertype` (user, reseller, admin) are all that is checked, and its
 * `language` (the user's DirectAdmin language, for the pages to speak it) and the package item
 * `wpp_web_protection` (for the user's menu) kept; a session it
 * does not know gets 401 (or, on older versions, its login page). CMD_API_GET_SESSION would say
 * the same but wants a POST and answers with the session's password.
 *
 * DirectAdmin listens on 127.0.0.1:2222 (its default port) and its certificate names the host,
 * not 127.0.0.1, so the certificate cannot tell DirectAdmin from another local program on that
 * port. What does: who owns the listening socket (directadmin-listener.ts), checked before the
 * session is sent anywhere. A redirect is never followed, the answer is read to 64 KB at most,
 * and neither the session nor the answer is ever logged or repeated in a message.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { z } from 'zod';
import { normalizeLocaleTag } from '../core/locale.js';
import { directAdminProtection } from './listings/directadmin.js';

/** DirectAdmin's API on this server: its default port, over TLS (DirectAdmin's default since its installer sets up SSL). */
export const DIRECTADMIN_API_URL = 'https://127.0.0.1:2222';

export interface DirectAdminSession {
  sessionId: string;
  sessionKey: string;
}

export interface DirectAdminUser {
  username: string;
  usertype: 'user' | 'reseller' | 'admin';
  /** The language the user chose in DirectAdmin (user.conf's `language`), as a BCP 47 tag; undefined when it is none. */
  language?: string | undefined;
  /** The package item wpp_web_protection in the user's user.conf: ON, OFF, or undefined when the package never saved it. */
  protection?: boolean | undefined;
}

export type SessionAnswer =
  | { ok: true; user: DirectAdminUser }
  /** `refused`: DirectAdmin does not know the session (forged, expired, signed out). `unavailable`: no trustworthy answer. */
  | { ok: false; reason: 'refused' | 'unavailable'; message: string };

export type DirectAdminSessionVerifier = (session: DirectAdminSession) => Promise<SessionAnswer>;

export interface DirectAdminApiOptions {
  /** Default DIRECTADMIN_API_URL; tests give a fake DirectAdmin's. */
  apiUrl?: string;
  /** Whether what listens at the API's address is DirectAdmin's (directadmin-listener.ts); tests give their own. */
  listenerIsDirectAdmins: (apiUrl: URL) => Promise<boolean>;
  timeoutMs?: number;
}

const MAX_ANSWER_BYTES = 64 * 1024;

/** Only the two fields wanted; DirectAdmin user names are lower-case letters and digits (its own rule). */
const userConfSchema = z.object({
  username: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/),
  usertype: z.enum(['user', 'reseller', 'admin']),
});

const isLoopback = (host: string) => host === 'localhost' || host === '[::1]' || (isIP(host) === 4 && host.startsWith('127.'));

interface RawAnswer {
  status: number;
  unauthorized: boolean;
  body: string;
}

function get(url: URL, cookie: string, timeoutMs: number): Promise<RawAnswer> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'GET',
        headers: { Cookie: cookie, Accept: 'text/plain' },
        timeout: timeoutMs,
        // The certificate names the host, never 127.0.0.1: on loopback the socket's owner is what is checked.
        ...(url.protocol === 'https:' ? { rejectUnauthorized: !isLoopback(url.hostname) } : {}),
      },
      (res: IncomingMessage) => {
        let size = 0;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) req.destroy(new Error('DirectAdmin answered with more than 64 KB'));
          else chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            unauthorized: String(res.headers['x-directadmin'] ?? '').toLowerCase() === 'unauthorized',
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`DirectAdmin did not answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** A TLS handshake with a server that speaks plain HTTP: DirectAdmin with ssl=0 in directadmin.conf. */
const speaksPlainHttp = (error: unknown) =>
  /wrong version number|EPROTO|packet length too long/i.test(String((error as Error).message ?? error));

export function createDirectAdminSessionVerifier(options: DirectAdminApiOptions): DirectAdminSessionVerifier {
  const base = new URL(options.apiUrl ?? DIRECTADMIN_API_URL);
  const timeoutMs = options.timeoutMs ?? 5_000;
  return async (session) => {
    if (!(await options.listenerIsDirectAdmins(base).catch(() => false))) {
      return {
        ok: false,
        reason: 'unavailable',
        message: `what answers at ${base.host} is not DirectAdmin (its socket belongs to another user): the session was not sent`,
      };
    }
    const cookie = `session=${session.sessionId}; key=${session.sessionKey}`;
    const url = new URL('/CMD_API_SHOW_USER_CONFIG', base);
    let answer: RawAnswer;
    try {
      answer = await get(url, cookie, timeoutMs).catch(async (error: unknown) => {
        if (url.protocol !== 'https:' || !speaksPlainHttp(error)) throw error;
        const plain = new URL(url);
        plain.protocol = 'http:';
        return get(plain, cookie, timeoutMs);
      });
    } catch (error) {
      return { ok: false, reason: 'unavailable', message: `DirectAdmin could not be asked at ${base.host}: ${(error as Error).message}` };
    }
    if (answer.status === 401 || answer.status === 403 || answer.unauthorized) {
      return { ok: false, reason: 'refused', message: 'DirectAdmin does not know this session (signed out or expired)' };
    }
    if (answer.status !== 200) return { ok: false, reason: 'unavailable', message: `DirectAdmin answered ${answer.status}` };
    // url-encoded, every field name and value escaped (DirectAdmin escapes even digits): decoded, never split by hand.
    const fields = new URLSearchParams(answer.body.trim());
    const parsed = userConfSchema.safeParse({
      username: fields.get('username') ?? undefined,
      usertype: fields.get('usertype') ?? undefined,
    });
    // The login page (older versions answer an unknown session with it), `error=1`, or no user: not a session DirectAdmin vouches for.
    if (!parsed.success || fields.get('error') === '1' || fields.getAll('username').length !== 1) {
      return { ok: false, reason: 'refused', message: 'DirectAdmin did not name the user of this session' };
    }
    const protection = directAdminProtection((name) => fields.get(name) ?? undefined);
    return { ok: true, user: { ...parsed.data, language: normalizeLocaleTag(fields.get('language')), protection } };
  };
}
