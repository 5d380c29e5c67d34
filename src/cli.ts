import { runCli } from './cli/program.js';

void runCli(process.argv.slice(2)).then((code) => {
  // At once: a failed command's handles must not keep the process running.
  if (code) process.exit(code);
});
