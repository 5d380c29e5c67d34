/**
 * `npm run bench -- NAME [options]`: runs bench/NAME.bench.ts, which prints human progress
 * to stderr and one JSON result line last on stdout.
 */
import { readdirSync } from 'node:fs';

const available = readdirSync(new URL('.', import.meta.url))
  .filter((file) => file.endsWith('.bench.ts'))
  .map((file) => file.replace(/\.bench\.ts$/, ''));

const [name, ...args] = process.argv.slice(2);
if (!name || !available.includes(name)) {
  console.error(`Usage: npm run bench -- NAME [options]\nAvailable: ${available.join(', ')}`);
  process.exit(name ? 2 : 0);
}
const bench = (await import(`./${name}.bench.ts`)) as { run(args: string[]): Promise<Record<string, unknown>> };
const result = await bench.run(args);
console.log(JSON.stringify({ bench: name, ...result }));
