/**
 * Nothing is read before the caller is known: the pages parse a form only after the session
 * check, multipart only on the one form that uploads (a domain's certificate), within sizes
 * that fit it; a request with a large declared body and no session is answered at once,
 * without its body. And callbacks, however they arrive, cost at most one provider read per
 * website in a short window: the request budget is the provider's, not an attacker's.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CALLBACK_REREAD_SPACING_MS } from '../../src/core/job-queue.js';
import { createPageClient } from '../helpers/page-client.js';
import { customer, launchUrl } from '../helpers/pages.js';
import { withPlugin } from '../helpers/plugin.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

/** Sends only the head of a request declaring `length` bytes of body, and reads what comes back before any byte of it. */
function headOnly(url: string, path: string, headers: Record<string, string>, length: number): Promise<{ status: number; head: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to ${path} within 3 s: the server waits for a body it should not read`));
    }, 3000);
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]), head: received.slice(0, end) });
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    const lines = [`POST ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, `Content-Length: ${length}`];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

const sandboxWebsite = async (sb: TestSandbox, domain: string) =>
  (await sb.control<{ domain: string; callbackUrl: string }[]>('GET', '/v1.0/website')).find((w) => w.domain === domain);

const MULTIPART = { 'Content-Type': 'multipart/form-data; boundary=----x' };
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

describe('page bodies are read only for a known caller', () => {
  it('answers a 13 MB post without a session at once, before its body, and closes the connection', async () => {
    await withPlugin(async (plugin) => {
      for (const [path, headers] of [
        ['/panel/nothing', MULTIPART],
        ['/panel/domains/shop.example/settings', MULTIPART],
        ['/admin/settings/limits', FORM],
      ] as const) {
        const answer = await headOnly(plugin.url, path, headers, 13_000_000);
        expect(answer.status, path).toBe(401);
        expect(answer.head.toLowerCase(), path).toContain('connection: close');
      }
    });
  });

  it('with a session, parses multipart only on the certificate form, and refuses a declared body too large for it at once', async () => {
    await withPlugin(async (plugin) => {
      await plugin.postEvents([
        { type: 'account.created', account: 'alice' },
        { type: 'domain.added', account: 'alice', domain: 'shop.example' },
      ]);
      await plugin.idle();
      const client = createPageClient(plugin.url);
      await client.get(launchUrl(plugin, customer('alice')));
      const page = await client.get('/panel/domains/shop.example');
      expect(page.status).toBe(200);
      const cookie = `wpp_customer=${client.cookies.get('wpp_customer') ?? ''}`;

      // Another form sent as multipart is not parsed: its token is not seen, so nothing is done.
      const other = new FormData();
      other.append('_csrf', client.csrfToken ?? '');
      const pause = await client.postMultipart('/panel/domains/shop.example/pause', other);
      expect(pause.status).toBe(403);
      expect(plugin.accounts.getWebsite('shop.example')?.desiredStatus).toBe('online');

      // The certificate form's declared size is checked before anything is read.
      const huge = await headOnly(plugin.url, '/panel/domains/shop.example/settings', { ...MULTIPART, Cookie: cookie }, 13_000_000);
      expect(huge.status).toBe(413);
      expect(huge.head.toLowerCase()).toContain('connection: close');

      // More files than a certificate and its key: refused, nothing saved.
      const files = new FormData();
      files.append('_csrf', client.csrfToken ?? '');
      for (const name of ['certificate', 'private_key', 'chain']) files.append(name, new Blob(['x']), `${name}.pem`);
      const threeFiles = await client.postMultipart('/panel/domains/shop.example/settings', files);
      expect(threeFiles.status).toBe(413);
    });
  });
});

describe('callbacks', () => {
  it('60 sequential callbacks for one website make one provider read in the window, and the last is still read after it', async () => {
    // The plugin's clock runs a minute ahead once provisioned: its last read of the website is old news.
    const clock = { offset: 0 };
    await withPlugin(
      async (plugin, sb) => {
        await plugin.postEvents([
          { type: 'account.created', account: 'alice' },
          { type: 'domain.added', account: 'alice', domain: 'flood.example' },
        ]);
        await plugin.idle();
        const token = (await sandboxWebsite(sb, 'flood.example'))?.callbackUrl.split('/').pop() ?? '';
        const lookups = async () =>
          (await sb.control<{ method: string; path: string }[]>('GET', '/_sandbox/requests?limit=1000')).filter(
            (r) => r.method === 'GET' && r.path.startsWith('/v1.0/website?domain=flood.example'),
          ).length;
        const before = await lookups();
        clock.offset = 60_000;
        const body = JSON.stringify({ event: 'website.status_changed', domain: 'flood.example', status: 'online' });
        for (let i = 0; i < 60; i += 1) {
          const answer = await fetch(`${plugin.url}/callbacks/website/${token}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
          });
          expect(answer.status).toBe(202);
          // The worker polls every 20 ms: give it time to run whatever is due between two callbacks.
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        await waitFor(async () => (await lookups()) > before, 5000, 'the first re-read');
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect((await lookups()) - before).toBe(1);
        const refreshes = plugin.jobs.list({ limit: 10_000 }).filter((job) => job.kind === 'website.refresh');
        expect(refreshes).toHaveLength(2);
        // Newest first: the re-read held back for the window, after the one that ran.
        const [waiting, done] = refreshes;
        expect(done?.state).toBe('done');
        expect(waiting?.state).toBe('pending');
        expect(waiting?.runAt).toBe((done?.runAt ?? 0) + CALLBACK_REREAD_SPACING_MS);
      },
      { now: () => Date.now() + clock.offset },
    );
  });
});
