import { appendFileSync } from 'node:fs';
import { pino } from 'pino';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/server.js';
import { createAnswerChecker, type AnswerChecker } from './openapi-answers.js';
import { createTempDir, removeTempDir } from './temp.js';

export { createTempDir, removeTempDir } from './temp.js';

export type TestSandbox = RunningSandbox & {
  dataDir: string;
  /** Calls the control API (or any path) with the partner key; throws on a non-2xx answer. */
  control<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** The /v1.0 answers so far that do not match docs/openapi.json (always empty with `checkAnswers: false`). */
  answerMismatches(): string[];
};

export type TestSandboxOptions = Partial<SandboxOptions> & {
  /**
   * Checks every /v1.0 answer against docs/openapi.json (and success answers with the client's
   * parsers); `close()` then fails listing any mismatch. Default true.
   */
  checkAnswers?: boolean;
};

let checker: AnswerChecker | undefined;

/** Defaults that keep tests fast and deterministic: DNS only through the control API, no rate limit. */
export const testSandboxDefaults: Omit<SandboxOptions, 'dataDir'> = {
  host: '127.0.0.1',
  port: 0,
  dnsDelaySeconds: null,
  certDelaySeconds: 0.2,
  rateLimitPerSecond: 0,
  callbackRetryBaseMs: 50,
  logger: pino({ level: 'silent' }),
};

export async function startTestSandbox({ checkAnswers = true, ...options }: TestSandboxOptions = {}): Promise<TestSandbox> {
  const dataDir = options.dataDir ?? createTempDir('wpp-sandbox-');
  const mismatches: string[] = [];
  const observeAnswer: SandboxOptions['observeAnswer'] = checkAnswers
    ? (answer) => {
        checker ??= createAnswerChecker();
        mismatches.push(...checker.check(answer));
        // For measuring which operations and statuses the suite provokes: one line per answer checked.
        if (process.env.WPP_TEST_ANSWER_LOG)
          appendFileSync(process.env.WPP_TEST_ANSWER_LOG, `${answer.method} ${answer.path} ${answer.status}\n`);
        options.observeAnswer?.(answer);
      }
    : options.observeAnswer;
  const sandbox = await startSandbox({ ...testSandboxDefaults, ...options, dataDir, ...(observeAnswer ? { observeAnswer } : {}) });
  return {
    ...sandbox,
    dataDir,
    answerMismatches: () => [...mismatches],
    async close() {
      await sandbox.close();
      if (mismatches.length > 0) {
        throw new Error(`The sandbox answered outside docs/openapi.json (${mismatches.length}):\n${mismatches.slice(0, 20).join('\n')}`);
      }
    },
    async control<T>(method: string, path: string, body?: unknown): Promise<T> {
      const response = await fetch(`${sandbox.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${sandbox.partnerKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
      return (text ? JSON.parse(text) : undefined) as T;
    },
  };
}

/** Starts a sandbox on port 0 in a temp folder, runs `fn`, and always closes and removes it. */
export async function withSandbox<T>(fn: (sandbox: TestSandbox) => Promise<T>, options: TestSandboxOptions = {}): Promise<T> {
  const sandbox = await startTestSandbox(options);
  try {
    return await fn(sandbox);
  } finally {
    try {
      await sandbox.close();
    } finally {
      if (!options.dataDir) removeTempDir(sandbox.dataDir);
    }
  }
}
