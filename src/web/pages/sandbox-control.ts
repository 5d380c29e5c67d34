/**
 * The embedded sandbox's control API (/_sandbox, partner key only), as the demo panel drives
 * it: the world outside the plugin (visitors, DNS) that a real provider would bring. Over
 * HTTP like any client, so the demo exercises what a real deployment does.
 */
import { AppError } from '../../errors.js';

export interface SandboxTarget {
  url: string;
  partnerKey: string;
}

/** What the sandbox answered, when it refused: its status and message, for the form. */
export type ControlOutcome = { ok: true } | { ok: false; status: number; message: string };

const CONTROL_TIMEOUT_MS = 5000;

export function createSandboxControl(target: SandboxTarget) {
  async function post(path: string, body: unknown): Promise<ControlOutcome> {
    let response: Response;
    try {
      response = await fetch(`${target.url}/_sandbox${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${target.partnerKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(CONTROL_TIMEOUT_MS),
      });
    } catch {
      throw new AppError('UNAVAILABLE', 'The embedded sandbox did not answer: try again in a moment');
    }
    if (response.ok) {
      await response.body?.cancel();
      return { ok: true };
    }
    const answer = (await response.json().catch(() => ({}))) as { message?: unknown };
    return { ok: false, status: response.status, message: typeof answer.message === 'string' ? answer.message : `HTTP ${response.status}` };
  }
  const site = (domain: string) => `/websites/${encodeURIComponent(domain)}`;
  return {
    /** Visitors: `hits` more requests, `blocked` of them blocked. */
    sendTraffic: (domain: string, hits: number, blocked: number) => post(`${site(domain)}/traffic`, { hits, blocked }),
    /** The customer pointed the domain at the provider: its DNS counts as verified now. */
    verifyDns: (domain: string) => post(`${site(domain)}/dns-verified`, {}),
  };
}

export type SandboxControl = ReturnType<typeof createSandboxControl>;
