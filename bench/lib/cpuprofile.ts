/**
 * Where a `node --cpu-prof` profile spent its time:
 *
 *   node --import tsx bench/lib/cpuprofile.ts FILE.cpuprofile [--top 25]
 *
 * Prints self time by function (name, file:line) and by module (package or src/ file), and
 * inclusive time of the top frames, as shares of the sampled time (idle excluded from shares).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** A short module name for a script URL: the npm package, a src/ or bench/ path, or node's own. */
export function moduleOf(url: string): string {
  if (url === '') return '(native/vm)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  if (url.startsWith('node:')) return url;
  const own = /\/((?:src|bench|test)\/.*)$/.exec(url);
  return own ? (own[1] as string) : url;
}

export function summarize(profile: Profile, top = 25): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const label = (node: ProfileNode) =>
    `${node.callFrame.functionName || '(anonymous)'} ${moduleOf(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
  const idle = (node: ProfileNode) => ['(idle)', '(program)', '(garbage collector)'].includes(node.callFrame.functionName);
  let total = 0;
  let idleUs = 0;
  const self = new Map<string, number>();
  const modules = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id) as ProfileNode;
    total += us;
    if (node.callFrame.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    self.set(label(node), (self.get(label(node)) ?? 0) + us);
    const module = idle(node) ? node.callFrame.functionName : moduleOf(node.callFrame.url);
    modules.set(module, (modules.get(module) ?? 0) + us);
    // Inclusive: every distinct frame on the stack gets the sample once.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at) as ProfileNode;
      const name = label(frame);
      if (!seen.has(name)) {
        seen.add(name);
        inclusive.set(name, (inclusive.get(name) ?? 0) + us);
      }
    }
  }
  const busy = total - idleUs;
  const pct = (us: number) => `${((us / busy) * 100).toFixed(1).padStart(5)}%`;
  const list = (map: Map<string, number>, n: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => `  ${pct(us)} ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`)
      .join('\n');
  return [
    `sampled ${(total / 1e6).toFixed(2)} s, busy ${(busy / 1e6).toFixed(2)} s, idle ${(idleUs / 1e6).toFixed(2)} s`,
    `self time by module:\n${list(modules, 20)}`,
    `self time by function:\n${list(self, top)}`,
    `inclusive time:\n${list(inclusive, top)}`,
  ].join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, '/'))) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
  for (const file of positionals) {
    console.log(`== ${file}`);
    console.log(summarize(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(values.top)));
  }
}
