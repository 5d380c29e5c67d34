/**
 * Serving an express app the way both servers of this project need: bounded waits for slow
 * or stalled clients, JSON answers even for requests express never sees (a header block too
 * large, a body that never completes), a listen failure that names the address and the cause,
 * and a close that does not hang on idle keep-alive connections.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A client gets this long to send its request line and headers. */
export const HEADERS_TIMEOUT_MS = 15_000;
/** ...and this long for the whole request, body included (the largest bodies here are a few MB). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Idle keep-alive connections are closed after this long. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** Problems Node's HTTP parser answers itself, before any route runs. */
export type ClientProblem = 'request_timeout' | 'headers_too_large' | 'bad_request';

const STATUS: Record<ClientProblem, { status: number; reason: string; message: string }> = {
  request_timeout: { status: 408, reason: 'Request Timeout', message: 'The request did not arrive in full in time' },
  headers_too_large: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    message: 'The request line and headers are too large (at most 16 KiB)',
  },
  bad_request: { status: 400, reason: 'Bad Request', message: 'The request is not valid HTTP' },
};

export class ListenError extends Error {
  override readonly name = 'ListenError';
  readonly code = 'LISTEN_FAILED';
  constructor(
    message: string,
    readonly errno: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const CAUSES: Record<string, string> = {
  EADDRINUSE: 'the address is already in use (EADDRINUSE): another program, perhaps another wpp, listens there',
  EADDRNOTAVAIL: 'the address is not one of this machine (EADDRNOTAVAIL)',
  EACCES: 'permission denied (EACCES): ports below 1024 need root',
  ENOTFOUND: 'the host name does not resolve (ENOTFOUND)',
  EAI_AGAIN: 'the host name could not be resolved now (EAI_AGAIN)',
};

export interface ListenOptions {
  host: string;
  port: number;
  /** What is listening, for messages: "the plugin", "the provider sandbox". */
  what: string;
  /** Where the address is set, for messages: "WPP_HOST and WPP_PORT". */
  setting: string;
  /** The JSON body of an answer Node's parser gives before express (each server has its own error format). */
  errorBody(problem: ClientProblem, status: number, message: string): unknown;
  /** Shorter timeouts, for tests. Defaults HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS. */
  timeouts?: { headersMs?: number; requestMs?: number };
}

export interface Listening {
  server: Server;
  /** http://host:port as bound (the real port when 0 was asked for). */
  url: string;
  port: number;
  /**
   * Stops accepting, closes idle connections, and resolves once the open requests are
   * answered; `force` drops the open ones too.
   */
  close(options?: { force?: boolean }): Promise<void>;
}

function answerClientProblem(socket: Socket, problem: ClientProblem, body: unknown): void {
  const { status, reason } = STATUS[problem];
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
  );
}

const hostForUrl = (address: AddressInfo) => (address.family === 'IPv6' ? `[${address.address}]` : address.address);

/** Listens on host:port; rejects with a ListenError that names the address and the cause. */
export async function listen(app: RequestListener, options: ListenOptions): Promise<Listening> {
  const requestTimeout = options.timeouts?.requestMs ?? REQUEST_TIMEOUT_MS;
  const server = createServer(
    {
      // Node refuses a headers timeout longer than the request timeout.
      headersTimeout: Math.min(options.timeouts?.headersMs ?? HEADERS_TIMEOUT_MS, requestTimeout),
      requestTimeout,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      // How often stalled requests are looked for (Node's default, 30 s, would add up to 30 s to the timeouts).
      connectionsCheckingInterval: 1000,
    },
    app,
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const response = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    const problem: ClientProblem =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'request_timeout'
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? 'headers_too_large'
          : 'bad_request';
    const { status, message } = STATUS[problem];
    answerClientProblem(socket, problem, options.errorBody(problem, status, message));
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const cause = (error.code && CAUSES[error.code]) ?? error.message;
      reject(
        new ListenError(
          `${options.what} cannot listen on ${options.host}:${options.port}: ${cause}. Set ${options.setting} to another address.`,
          error.code,
          { cause: error },
        ),
      );
    };
    server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.removeListener('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    server,
    url: `http://${hostForUrl(address)}:${address.port}`,
    port: address.port,
    close({ force = false } = {}) {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        if (force) server.closeAllConnections();
        else server.closeIdleConnections();
      });
      return closing;
    },
  };
}
