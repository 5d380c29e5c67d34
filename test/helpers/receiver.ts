import type { IncomingHttpHeaders } from 'node:http';
import { verifySignature } from '../../src/core/signature.js';
import { startServer } from './server.js';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  answeredWith: number;
}

/** Whether a request carries X-WPP-Signature of its exact body keyed with `secret`, as a notification receiver checks it. */
export function signedWith(request: ReceivedRequest, secret: string): boolean {
  const header = request.headers['x-wpp-signature'];
  return typeof header === 'string' && verifySignature(Buffer.from(request.body, 'utf8'), header, secret);
}

/**
 * A real HTTP receiver on 127.0.0.1:0 for callbacks. `failFirst` answers the first N requests
 * with 500 (a failing receiver); every request is recorded with the status it got.
 */
export async function startReceiver(options: { failFirst?: number } = {}) {
  const received: ReceivedRequest[] = [];
  let failuresLeft = options.failFirst ?? 0;
  const server = await startServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const status = failuresLeft > 0 ? 500 : 200;
      if (failuresLeft > 0) failuresLeft--;
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        answeredWith: status,
      });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'failing on purpose');
    });
  });
  return {
    url: server.url,
    received,
    close: () => server.close({ force: true }),
  };
}
