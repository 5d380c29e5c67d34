import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh folder under the OS temp dir; remove it with `removeTempDir` in a finally. */
export function createTempDir(prefix = 'wpp-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Runs `fn` with a temp folder that is removed afterwards, whatever happens. */
export async function withTempDir<T>(fn: (dir: string) => Promise<T> | T): Promise<T> {
  const dir = createTempDir();
  try {
    return await fn(dir);
  } finally {
    removeTempDir(dir);
  }
}
