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
  /** The fleet database's migrations (PostgreSQL; src/fleet/migrate.ts). */
  fleetMigrations: fileURLToPath(new URL('../migrations/fleet', import.meta.url)),
  views: fileURLToPath(new URL('../views', import.meta.url)),
  /** The message catalogs of the pages, one per language (locales/en.json ...; core/i18n.ts). */
  locales: fileURLToPath(new URL('../locales', import.meta.url)),
  /** The pages' own stylesheet and scripts (views/static), served under /assets. */
  staticAssets: fileURLToPath(new URL('../views/static', import.meta.url)),
  /** What `wpp install <panel>` puts into a panel (plugin folders, pages, hook scripts), as real files. */
  panelFiles: fileURLToPath(new URL('../panels', import.meta.url)),
};
