/** Reads what a panel hosts (or a JSON file of it) into one checked listing (core/panel-listing.ts). */
import { readFile } from 'node:fs/promises';
import { AppError } from '../../errors.js';
import { createToolRunner } from '../../install/tools.js';
import { runPanelImport, type ImportOptions, type PanelImportDeps } from '../../core/import.js';
import { parseListing, type PanelListing, type PanelName } from '../../core/panel-listing.js';
import { readCpanelListing } from './cpanel.js';
import { readDirectAdminListing } from './directadmin.js';
import { readPleskListing } from './plesk.js';
import { readVirtualminListing } from './virtualmin.js';

export type ListingSource = { panel: PanelName; root?: string } | { file: string };

export const describeSource = (source: ListingSource) => ('file' in source ? source.file : source.panel);

export async function readListingFile(path: string): Promise<PanelListing> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new AppError('NOT_FOUND', `${path} could not be read: ${error.code ?? error.message}`);
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new AppError('VALIDATION_FAILED', `${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseListing(json, path);
}

/** The panel's accounts, domains and subdomains; throws (nothing compared) when the panel's output is not what it should be. */
export async function readPanelListing(source: ListingSource, onProgress?: (done: number, total: number) => void): Promise<PanelListing> {
  if ('file' in source) return readListingFile(source.file);
  const tools = createToolRunner(source.root ?? '/');
  const raw =
    source.panel === 'cpanel'
      ? await readCpanelListing(tools)
      : source.panel === 'plesk'
        ? await readPleskListing(tools, onProgress)
        : source.panel === 'virtualmin'
          ? await readVirtualminListing(tools)
          : await readDirectAdminListing(tools);
  return parseListing(raw, source.panel);
}

/** `wpp import` and the scheduled check on one plugin: a listing source in, a recorded comparison out. */
export function createPanelImport(deps: PanelImportDeps) {
  return {
    run: (source: ListingSource, options: Omit<ImportOptions, 'panel'>, onProgress?: (done: number, total: number) => void) =>
      runPanelImport(deps, () => readPanelListing(source, onProgress), { ...options, panel: describeSource(source) }),
  };
}

export type PanelImport = ReturnType<typeof createPanelImport>;
