/**
 * What a running plugin's GET /metrics says of its provider calls: the answers it counted
 * (wpp_provider_responses_total), 429s apart, which is how the pacer tests measure the 429
 * share; and the rate its request budget allows now.
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

/** wpp_provider_budget_rate_per_second: the rate and where it comes from (learned, or the fleet's lease); undefined when not exported. */
export async function budgetRate(url: string): Promise<{ source: string; rate: number } | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const match = /^wpp_provider_budget_rate_per_second\{source="(\w+)"\} (\S+)$/m.exec(text);
  return match ? { source: match[1] as string, rate: Number(match[2]) } : undefined;
}
