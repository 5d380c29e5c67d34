/**
 * The panel comparison page: the last comparison of the panel's accounts and domains with
 * the plugin's and the provider's (`wpp import`, or the scheduled drift check), its
 * differences, the few before it, and the command that queues what is missing. Read-only:
 * reading the panel takes its root-only tools, which `wpp import` runs.
 */
import express, { type Response } from 'express';
import type { Translate } from '../../core/i18n.js';
import { DIFFERENCE_KINDS } from '../../core/import-diff.js';
import type { StoredComparison } from '../../db/import.repo.js';

export interface ImportPagesDeps {
  recentComparisons(limit: number): StoredComparison[];
  /** WPP_PANEL, for the command shown; null: none configured. */
  panel: string | null;
}

/** How many earlier comparisons are listed under the last one. */
const HISTORY = 10;
/** Differences shown on the page; the stored list and the counts go further. */
const SHOWN = 200;

/** The command that queues what the comparison found missing. */
function applyCommand(comparison: StoredComparison, configured: string | null): string {
  const panel = ['cpanel', 'plesk', 'directadmin', 'virtualmin'].includes(comparison.panel) ? comparison.panel : (configured ?? null);
  return panel ? `wpp import ${panel} --apply` : `wpp import --file ${comparison.panel} --apply`;
}

export function createImportRouter(deps: ImportPagesDeps): express.Router {
  const router = express.Router();
  router.get('/import', (_req, res: Response) => {
    const [last, ...earlier] = deps.recentComparisons(HISTORY + 1);
    res.render('admin/import', {
      // Each kind's words are the catalog's (panelComparison.kinds.<kind>).
      title: (res.locals.t as Translate)('panelComparison.title'),
      last: last ?? null,
      earlier,
      shown: last ? last.differences.slice(0, SHOWN) : [],
      kinds: DIFFERENCE_KINDS.filter((kind) => (last?.counts[kind] ?? 0) > 0),
      command: last ? applyCommand(last, deps.panel) : deps.panel ? `wpp import ${deps.panel}` : 'wpp import <cpanel|plesk|directadmin>',
      panel: deps.panel,
    });
  });
  return router;
}
