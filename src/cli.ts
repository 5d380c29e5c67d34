import { runCli } from './cli/program.js';

// A reader that stops early (`wpp --help | head`, `wpp jobs | head`) closes the pipe: that is
// the end of the output wanted, not a crash with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

void runCli(process.argv.slice(2)).then((code) => {
  // At once: a failed command's handles must not keep the process running.
  if (code) process.exit(code);
});
