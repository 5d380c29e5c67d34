/**
 * The routes an express router answers, read from the router itself, so a test that must
 * cover "every page" covers the pages added after it was written too.
 */
import type { Router } from 'express';

export interface RouteOf {
  method: string;
  path: string;
}

interface Layer {
  rawPath?: unknown;
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** Every (method, path) of `router` and the routers mounted in it, paths prefixed with `prefix`. */
export function routesOf(router: Router, prefix = ''): RouteOf[] {
  const found: RouteOf[] = [];
  for (const layer of (router as unknown as { stack: Layer[] }).stack) {
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods).filter((m) => layer.route?.methods[m] && m !== '_all')) {
        found.push({ method: method.toUpperCase(), path: joinPath(prefix, layer.route.path) });
      }
    } else if (layer.handle?.stack) {
      const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      found.push(...routesOf(layer.handle as unknown as Router, `${prefix}${mount}`));
    }
  }
  return found;
}

const joinPath = (prefix: string, path: string) => {
  const joined = `${prefix}${path === '/' ? '' : path}`;
  return joined === '' ? '/' : joined;
};
