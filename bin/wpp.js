#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (`npm run build`).
import('../dist/cli.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli.js')) {
    console.error('wpp: not built yet. Run `npm run build` (or `npm start`) first.');
    process.exit(1);
  }
  throw error;
});
