/**
 * The plugin's HTTP server (`wpp serve`) on WPP_HOST:WPP_PORT. It listens first, because the
 * callback URLs the services give the provider need the port actually bound; the app that
 * answers (plugin-app.ts) is handed over once the services exist, in the same turn of the
 * event loop, so no request meets the server without it.
 */
import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Lifecycle } from '../lifecycle.js';
import { clientProblemBody } from './app.js';
import { listen } from '../http-server.js';

export interface PluginServerDeps {
  config: Config;
  logger: Logger;
  life: Lifecycle;
  /** HTTP server timeouts, for tests (see listen.ts for the defaults). */
  timeouts?: { headersMs?: number; requestMs?: number } | undefined;
}

export interface PluginServer {
  /** http://host:port with the port actually bound. */
  url: string;
  /** The app that answers every request from now on. */
  serve(app: RequestListener): void;
}

/** Listens, and closes with the plugin. */
export async function startPluginServer({ config, life, timeouts }: PluginServerDeps): Promise<PluginServer> {
  let app: RequestListener | undefined;
  const server = await listen(
    (req, res) => {
      if (app) return app(req, res);
      res
        .writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' })
        .end('{"status":"error","code":"UNAVAILABLE","message":"starting"}');
    },
    {
      host: config.host,
      port: config.port,
      what: 'The plugin',
      setting: 'WPP_HOST and WPP_PORT',
      errorBody: clientProblemBody,
      ...(timeouts ? { timeouts } : {}),
    },
  );
  life.onClose(() => server.close());
  return {
    url: server.url,
    serve: (next) => {
      app = next;
    },
  };
}
