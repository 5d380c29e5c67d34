/**
 * DirectAdmin's API as far as the plugin pages' sign-in uses it, for tests: one command,
 * GET /CMD_API_SHOW_USER_CONFIG, answered for the session its cookie names.
 *
 * Shapes, from what DirectAdmin documents and public code shows (see docs/panels/directadmin.md):
 * - the session travels as `Cookie: session=<SESSION_ID>; key=<SESSION_KEY>`, as DirectAdmin's
 *   own HTTPSocket class sends it "for DA skins" and plugins replay it (docs.directadmin.com,
 *   developer/api: "Sessions (simulating web-browser), using Cookie header");
 * - the answer is the session's own user.conf, url-encoded (`key=value&...`, directadmin.com/api.html),
 *   DirectAdmin escaping more than it must (digits too, as observed on 1.709 by shukiv/gniza's ADR 0020);
 * - a session DirectAdmin does not know gets `401 Unauthorized` (same ADR) with
 *   `X-DirectAdmin: unauthorized` (the header public API clients check).
 */
import { createServer, type Server } from 'node:http';

export interface FakeDirectAdmin {
  url: string;
  /** Live sessions by id: the key and the user.conf the session belongs to. */
  sessions: Map<string, { key: string; conf: Record<string, string> }>;
  /** Every request's method, path and cookie, in order. */
  requests: { method: string; path: string; cookie: string | undefined }[];
  close(): Promise<void>;
}

/** Every character but letters escaped, as DirectAdmin does (`gzv%30%39%30%38a`). */
const escapeAll = (value: string) =>
  [...value].map((c) => (/[A-Za-z]/.test(c) ? c : `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)).join('');

export function userConf(username: string, usertype: 'user' | 'reseller' | 'admin', extra: Record<string, string> = {}) {
  return {
    account: 'ON',
    creator: 'admin',
    domain: `${username}.example`,
    email: `${username}@mail.example`,
    ip: '192.0.2.30',
    language: 'en',
    package: 'business',
    suspended: 'no',
    username,
    usertype,
    ...extra,
  };
}

export async function startFakeDirectAdmin(): Promise<FakeDirectAdmin> {
  const sessions = new Map<string, { key: string; conf: Record<string, string> }>();
  const requests: FakeDirectAdmin['requests'] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push({ method: req.method ?? '', path: url.pathname + url.search, cookie: req.headers.cookie });
    const cookies = Object.fromEntries(
      (req.headers.cookie ?? '').split(/;\s*/).map((pair) => [pair.split('=')[0], pair.split('=').slice(1).join('=')]),
    );
    const session = sessions.get(cookies.session ?? '');
    if (!session || session.key !== cookies.key) {
      res.writeHead(401, { 'Content-Type': 'text/html', 'X-DirectAdmin': 'unauthorized' });
      res.end('<html><body>Please login</body></html>');
      return;
    }
    if (req.method !== 'GET' || url.pathname !== '/CMD_API_SHOW_USER_CONFIG') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('error=1&text=Cannot%20Execute%20Your%20Request');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(
      Object.entries(session.conf)
        .map(([name, value]) => `${escapeAll(name)}=${escapeAll(value)}`)
        .join('&'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    sessions,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
