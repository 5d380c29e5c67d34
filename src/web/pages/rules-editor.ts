/**
 * The provider's rules editor for the customer's frame: its address from the URL template
 * (WPP_RULES_EDITOR_URL), and a probe of whether the provider answers and lets this page
 * frame it, so the page can say why the frame stays empty. The address holds the customer's
 * API key: it goes into that customer's own page only, and never into a log.
 */

export type FrameProbe = 'ok' | 'refuses_framing' | 'unreachable';

/** Whether the answer's headers let a page of `pageOrigin` frame it (X-Frame-Options, CSP frame-ancestors). */
export function framingAllowed(headers: Headers, pageOrigin: string, frameOrigin: string): boolean {
  const xfo = headers.get('x-frame-options')?.trim().toLowerCase();
  if (xfo === 'deny' || (xfo === 'sameorigin' && pageOrigin !== frameOrigin)) return false;
  const csp = headers.get('content-security-policy') ?? '';
  const directive = csp
    .split(';')
    .map((part) => part.trim().split(/\s+/))
    .find(([name]) => name?.toLowerCase() === 'frame-ancestors');
  if (!directive) return true;
  const sources = directive.slice(1).map((source) => source.replace(/^'|'$/g, '').toLowerCase());
  if (sources.includes('*')) return true;
  if (sources.includes('self') && pageOrigin === frameOrigin) return true;
  return sources.some((source) => source === pageOrigin.toLowerCase() || source === new URL(pageOrigin).host);
}

/** Asks the editor's address once, with a short timeout; the answer's body is not read. */
export async function probeRulesEditor(url: string, pageOrigin: string, timeoutMs = 4000): Promise<FrameProbe> {
  try {
    const response = await fetch(url, { method: 'GET', redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) });
    void response.body?.cancel();
    if (response.status >= 500) return 'unreachable';
    return framingAllowed(response.headers, pageOrigin, new URL(response.url || url).origin) ? 'ok' : 'refuses_framing';
  } catch {
    return 'unreachable';
  }
}
