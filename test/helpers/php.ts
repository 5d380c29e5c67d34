/**
 * Runs a panel's PHP page the way the panel would, with PHP compiled to WebAssembly
 * (@php-wasm/node, a dev dependency: no php-cli needed on the machine). The page's file and
 * the stub of the panel's page API are written into PHP's own file system at the paths the
 * panel would have them, so the page includes its panel's files exactly as on a server.
 */

/** The little of php-wasm's API used here. Its published types re-export from a folder, which NodeNext resolution cannot follow. */
interface PhpRuntime {
  mkdir(path: string): void;
  writeFile(path: string, content: string): void;
  run(request: {
    relativeUri?: string;
    scriptPath: string;
    method: string;
    env: Record<string, string>;
    $_SERVER: Record<string, string>;
  }): Promise<{ httpStatusCode: number; headers: Record<string, string[]>; text: string; errors: string }>;
  exit(): void;
}
const { PHP } = (await import('@php-wasm/universal')) as unknown as { PHP: new (runtime: unknown) => PhpRuntime };
const { loadNodeRuntime } = (await import('@php-wasm/node')) as unknown as {
  loadNodeRuntime: (version: string, options: { emscriptenOptions: { processId: number } }) => Promise<unknown>;
};

export interface PhpPageRun {
  /** Absolute path of the page inside PHP's file system, e.g. /usr/local/cpanel/base/frontend/jupiter/wpp/index.live.php. */
  scriptPath: string;
  /** Files to place before the run (the page itself, the panel stubs): path -> content. */
  files: Record<string, string>;
  /** The page's environment, e.g. REMOTE_USER. */
  env?: Record<string, string>;
  method?: 'GET' | 'POST';
  /** Query string without '?'. */
  query?: string;
}

export interface PhpPageResult {
  status: number;
  headers: Record<string, string[]>;
  body: string;
  /** What PHP wrote on standard error (warnings, notices). */
  errors: string;
}

let nextProcessId = 1;

/** One fresh PHP per page run, so nothing leaks between runs. */
export async function runPhpPage(run: PhpPageRun): Promise<PhpPageResult> {
  const php = new PHP(await loadNodeRuntime('8.3', { emscriptenOptions: { processId: nextProcessId++ } }));
  try {
    for (const [path, content] of Object.entries(run.files)) {
      php.mkdir(path.slice(0, path.lastIndexOf('/')) || '/');
      php.writeFile(path, content);
    }
    const result = await php.run({
      // The request's path and query: PHP fills $_GET from it (QUERY_STRING in $_SERVER alone does not).
      relativeUri: `${run.scriptPath}${run.query ? `?${run.query}` : ''}`,
      scriptPath: run.scriptPath,
      method: run.method ?? 'GET',
      env: run.env ?? {},
      $_SERVER: { ...(run.env ?? {}), QUERY_STRING: run.query ?? '', REQUEST_METHOD: run.method ?? 'GET' },
    });
    return { status: result.httpStatusCode, headers: result.headers, body: result.text, errors: result.errors };
  } finally {
    php.exit();
  }
}
