/**
 * The pages' stylesheet and scripts, and the chart library, served by the plugin itself from
 * views/static and node_modules: a panel may run with no internet, so nothing comes from a CDN.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import express from 'express';
import { paths } from '../../paths.js';

const uplotDist = join(dirname(createRequire(import.meta.url).resolve('uplot')), '.');

const LIBRARY_FILES: Record<string, string> = {
  'uplot.min.js': join(uplotDist, 'uPlot.iife.min.js'),
  'uplot.min.css': join(uplotDist, 'uPlot.min.css'),
};

export function createAssetsRouter(): express.Router {
  const router = express.Router();
  const cache = { maxAge: '1h', immutable: false };
  for (const [name, file] of Object.entries(LIBRARY_FILES)) {
    router.get(`/assets/${name}`, (_req, res) => res.sendFile(file, cache));
  }
  router.use('/assets', express.static(paths.staticAssets, { ...cache, index: false, fallthrough: false }));
  return router;
}
