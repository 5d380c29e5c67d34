/**
 * `wpp sandbox` as a user runs it, driven with curl exactly like the spec's examples
 * (and docs/sandbox.md's), form-encoded and JSON.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const exec = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;

function startCli(dataDir: string): Promise<{ child: ChildProcess; url: string; key: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli.ts', 'sandbox', '--port', '0', '--data', dataDir, '--dns-delay', 'never', '--cert-delay', '0'],
    {
      cwd: root,
      env: { ...process.env, WPP_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`wpp sandbox did not start: ${out}${err}`)), 15_000);
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      const key = /Partner key: (\S+)/.exec(out)?.[1];
      if (url && key) {
        clearTimeout(timer);
        resolve({ child, url, key });
      }
    });
    child.once('exit', (code) => reject(new Error(`wpp sandbox exited with ${code}: ${out}${err}`)));
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked field by field
async function curl(...args: string[]): Promise<{ status: number; body: any }> {
  const { stdout } = await exec('curl', ['-s', '-w', '\n%{http_code}', ...args]);
  const lines = stdout.trimEnd().split('\n');
  const status = Number(lines.pop());
  const text = lines.join('\n');
  return { status, body: text ? JSON.parse(text) : null };
}

describe('wpp sandbox with curl', () => {
  let dataDir: string;
  let sandbox: Awaited<ReturnType<typeof startCli>>;

  beforeAll(async () => {
    dataDir = createTempDir('wpp-cli-');
    sandbox = await startCli(dataDir);
  });

  afterAll(async () => {
    const exited = new Promise((resolve) => sandbox.child.once('exit', resolve));
    sandbox.child.kill('SIGTERM');
    await exited;
    removeTempDir(dataDir);
  });

  it('works as the spec examples do, form-encoded and JSON, and stops cleanly on SIGTERM', async () => {
    const { url, key } = sandbox;
    const auth = ['-H', `Authorization: Bearer ${key}`];
    const user = await curl(...auth, '-d', 'id=alice@example.com', `${url}/v1.0/user`);
    expect(user.status).toBe(201);
    expect(user.body.api_key).toMatch(/^[0-9a-f-]{36}$/);

    const list = await curl('-H', 'accept: application/json', ...auth, `${url}/v1.0/user`);
    expect(list.body.map((u: { id: string }) => u.id)).toEqual(['alice@example.com']);
    const listByPost = await curl(...auth, '-X', 'POST', '-H', 'content-type: application/x-www-form-urlencoded', `${url}/v1.0/user`);
    expect(listByPost.status).toBe(200);

    const formSite = await curl(
      ...auth,
      '-d',
      'user_id=alice@example.com',
      '-d',
      'domain=example.com',
      '-d',
      'subdomain=www,shop',
      '-d',
      'ip=203.0.113.10',
      '-d',
      'tag=basic',
      `${url}/v1.0/website`,
    );
    expect(formSite.status).toBe(201);
    expect(formSite.body).toMatchObject({ domain: 'example.com', subdomain: ['www', 'shop'], status: 'pending_dns' });

    const jsonSite = await curl(
      ...auth,
      '-H',
      'content-type: application/json',
      '-d',
      JSON.stringify({
        domain: 'shop.example',
        subdomain: ['www'],
        user_id: 'alice@example.com',
        ip: ['203.0.113.11'],
        tag: ['pro'],
        status: 'online',
        settings: {
          rules: { humans: 'grant', content_scrapers: 'deny', suspicious_behaviour: 'captcha' },
          rulesets: { wordpress: true },
          loadbalancer: { certs_issuer: 'acme', force_https: true },
        },
      }),
      `${url}/v1.0/website`,
    );
    expect(jsonSite.status).toBe(201);
    expect(jsonSite.body.settings.rulesets.wordpress).toBe(true);

    // Bare key (one of the spec's examples), form status change.
    const paused = await curl('-X', 'PUT', '-H', `Authorization: ${key}`, '-d', 'status=paused', `${url}/v1.0/website/example.com`);
    expect(paused.body.requested_status).toBe('paused');
    const partial = await curl(
      '-X',
      'PUT',
      ...auth,
      '-H',
      'content-type: application/json',
      '-d',
      '{"domain":"example.com","settings":{"rules":{"suspicious_behaviour":"deny"}}}',
      `${url}/v1.0/website/example.com`,
    );
    expect(partial.body.settings.rules.suspicious_behaviour).toBe('deny');
    const looked = await curl(...auth, `${url}/v1.0/website?domain=example.com`);
    expect(looked.body.settings.rules.suspicious_behaviour).toBe('deny');
    const stats = await curl('-H', 'accept: application/json', ...auth, `${url}/v1.0/website/example.com/statistics`);
    expect(stats.body).toMatchObject({ domain: 'example.com', total: 0 });
    const wrongKey = await curl('-H', 'Authorization: Bearer nope', `${url}/v1.0/user`);
    expect(wrongKey.status).toBe(401);
  });
});
