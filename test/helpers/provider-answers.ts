/**
 * What a running plugin counted of the provider's answers (its GET /metrics,
 * wpp_provider_responses_total), 429s apart: how the pacer tests measure the 429 share.
 */
export async function providerAnswers(url: string): Promise<{ all: number; limited: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let all = 0;
  let limited = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('wpp_provider_responses_total{')) continue;
    const count = Number(line.slice(line.lastIndexOf(' ') + 1));
    all += count;
    if (line.includes('code="429"')) limited += count;
  }
  return { all, limited };
}
