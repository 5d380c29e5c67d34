/**
 * The record of one panel's installation (`/var/lib/wpp/install/<panel>.json`): every file,
 * folder and registration it made, so uninstall removes exactly that and nothing of anyone else's.
 */
import { mkdir, readdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { LAYOUT, recordPath } from './layout.js';
import type { ToolRunner } from './tools.js';

const toolCall = z.strictObject({ tool: z.string().startsWith('/'), args: z.array(z.string()) });

export const installRecordSchema = z.strictObject({
  panel: z.string().min(1),
  version: z.string(),
  installedAt: z.string(),
  updatedAt: z.string(),
  files: z.array(
    z.strictObject({ path: z.string().startsWith('/'), mode: z.number().int(), sha256: z.string(), keep: z.boolean().optional() }),
  ),
  directories: z.array(z.strictObject({ path: z.string().startsWith('/'), mode: z.number().int(), data: z.boolean().optional() })),
  /** Releases copied under /usr/local/lib/wpp: the one the launcher runs, and the one kept for `wpp rollback` (previous). */
  releases: z
    .array(
      z.strictObject({
        path: z.string().startsWith('/'),
        version: z.string(),
        fingerprint: z.string(),
        previous: z.boolean().optional(),
      }),
    )
    .optional(),
  registrations: z.array(
    z.strictObject({
      key: z.string(),
      describe: z.string(),
      fingerprint: z.string(),
      ids: z.array(z.string()),
      undo: z.array(toolCall),
      afterRemoval: z.array(toolCall).optional(),
      purgeOnly: z.boolean().optional(),
    }),
  ),
});
export type InstallRecord = z.infer<typeof installRecordSchema>;

/** The record where it is, else where an install from before the service user left it. */
export async function readInstallRecord(tools: ToolRunner, panel: string): Promise<InstallRecord | undefined> {
  return (await readRecordFile(tools, recordPath(panel))) ?? readRecordFile(tools, legacyRecordPath(panel));
}

const legacyRecordPath = (panel: string) => `${LAYOUT.legacyRecordDir}/${panel}.json`;

/** The panel's record, or undefined when it is not installed. A damaged record is an error, never "not installed". */
async function readRecordFile(tools: ToolRunner, path: string): Promise<InstallRecord | undefined> {
  const file = tools.at(path);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = installRecordSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${path} is not a wpp install record (${parsed.error.issues[0]?.message}); fix or remove it`);
  return parsed.data;
}

/** Every installed panel's record, for uninstall (shared files) and doctor. */
export async function readAllInstallRecords(tools: ToolRunner): Promise<InstallRecord[]> {
  const namesIn = (dir: string) =>
    readdir(tools.at(dir)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[];
      throw error;
    });
  const names = new Set([...(await namesIn(LAYOUT.recordDir)), ...(await namesIn(LAYOUT.legacyRecordDir))]);
  const records = await Promise.all([...names].filter((n) => n.endsWith('.json')).map((n) => readInstallRecord(tools, n.slice(0, -5))));
  return records.filter((r): r is InstallRecord => r !== undefined);
}

export async function writeInstallRecord(tools: ToolRunner, record: InstallRecord): Promise<void> {
  const file = tools.at(recordPath(record.panel));
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.tmp-${process.pid}`;
  await writeFile(temp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, file);
  await removeLegacyRecord(tools, record.panel);
}

/** The record an install from before the service user kept in the data folder: gone once it is rewritten. */
async function removeLegacyRecord(tools: ToolRunner, panel: string): Promise<void> {
  await rm(tools.at(legacyRecordPath(panel)), { force: true });
  await rmdir(tools.at(LAYOUT.legacyRecordDir)).catch(() => undefined);
}

export async function removeInstallRecord(tools: ToolRunner, panel: string): Promise<void> {
  await rm(tools.at(recordPath(panel)), { force: true });
  await removeLegacyRecord(tools, panel);
}
