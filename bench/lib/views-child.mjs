/**
 * The plugin side of the views bench: `wpp serve`'s startPlugin on the compiled dist/ (as a
 * deployment runs), HTTP on, worker and scheduler off, over a database the bench has seeded.
 * Prints {"url","pid"} when listening; stops when stdin closes or on SIGTERM.
 *
 *   node bench/lib/views-child.mjs      (after npm run build)
 */
import { loadConfig } from '../../dist/config.js';
import { startPlugin } from '../../dist/main.js';

const config = loadConfig(process.env);
const plugin = await startPlugin({ config, role: 'serve', worker: false, scheduler: false });
process.stdout.write(`${JSON.stringify({ url: plugin.url, pid: process.pid })}\n`);
await new Promise((resolve) => {
  process.stdin.on('end', resolve);
  process.stdin.on('error', resolve);
  process.stdin.resume();
  process.once('SIGTERM', resolve);
  process.once('SIGINT', resolve);
});
await plugin.close();
