/**
 * `wpp doctor`: a list of named checks, each an async function giving a status and a one-line
 * detail. They run at once, each under its own deadline, so one that hangs (a provider that
 * never answers) neither stops the others nor the command; one that throws is a failure.
 */
import { describeError } from '../errors.js';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  status: CheckStatus;
  /** One line; never a secret. */
  detail: string;
}

export interface DoctorCheck {
  /** Short, lower-case, one word or hyphenated: the second column. */
  name: string;
  /** `signal` is aborted at the deadline: a check that waits on I/O should pass it on. */
  run(signal: AbortSignal): Promise<CheckResult>;
}

export interface CheckReport extends CheckResult {
  name: string;
  ms: number;
}

/** Thrown by a check that cannot run (its input is missing): reported as `skip`, not as a failure of its own. */
export class SkipCheck extends Error {
  override readonly name = 'SkipCheck';
}

export const DEFAULT_CHECK_TIMEOUT_MS = 5000;

export const ok = (detail: string): CheckResult => ({ status: 'ok', detail });
export const warn = (detail: string): CheckResult => ({ status: 'warn', detail });
export const fail = (detail: string): CheckResult => ({ status: 'fail', detail });

async function runOne(check: DoctorCheck, timeoutMs: number): Promise<CheckReport> {
  const started = performance.now();
  const deadline = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(() => {
      deadline.abort(new Error(`no result within ${timeoutMs / 1000} s`));
      resolve(fail(`no result within ${timeoutMs / 1000} s`));
    }, timeoutMs);
  });
  let result: CheckResult;
  try {
    result = await Promise.race([check.run(deadline.signal), timedOut]);
  } catch (error) {
    result = error instanceof SkipCheck ? { status: 'skip', detail: error.message } : fail(describeError(error));
  } finally {
    clearTimeout(timer);
  }
  return { name: check.name, ...result, ms: Math.round(performance.now() - started) };
}

/** Runs every check (at once), each with its deadline; the reports in the checks' order. */
export function runDoctor(checks: readonly DoctorCheck[], options: { timeoutMs?: number } = {}): Promise<CheckReport[]> {
  return Promise.all(checks.map((check) => runOne(check, options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS)));
}

const LABELS: Record<CheckStatus, string> = { ok: 'ok', warn: 'warn', fail: 'FAIL', skip: 'skip' };

/** One line per check: `ok    database   plugin.sqlite 1.2 MB, ...`, the columns aligned. */
export function formatReports(reports: readonly CheckReport[]): string {
  const width = Math.max(...reports.map((report) => report.name.length));
  return reports.map((report) => `${LABELS[report.status].padEnd(4)}  ${report.name.padEnd(width)}  ${report.detail}`).join('\n');
}

/** 1 when any check failed; warnings and skips alone exit 0. */
export const doctorExitCode = (reports: readonly CheckReport[]): number => (reports.some((report) => report.status === 'fail') ? 1 : 0);
