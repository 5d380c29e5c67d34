import { fileURLToPath } from 'node:url';

/**
 * Folders shipped next to the code. Resolved from this file so they work the same from
 * src/ (tests, tsx) and from dist/ (the built CLI): both sit one level below the root.
 */
const root = fileURLToPath(new URL('..', import.meta.url));

export const paths = {
  root,
  migrations: fileURLToPath(new URL('../migrations', import.meta.url)),
  sandboxMigrations: fileURLToPath(new URL('../migrations/sandbox', import.meta.url)),
  views: fileURLToPath(new URL('../views', import.meta.url)),
  /** The pages' own stylesheet and scripts (views/static), served under /assets. */
  staticAssets: fileURLToPath(new URL('../views/static', import.meta.url)),
  /** Each panel's own files (pages, scripts, manifests) that `wpp install <panel>` fills in and writes. */
  panelFiles: fileURLToPath(new URL('../panels', import.meta.url)),
};
