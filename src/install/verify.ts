/**
 * Is what `wpp install` put in place still there? For `wpp doctor`: every recorded file
 * present with the content it was written with (kept files: present), every registration
 * still listed by the panel's own tool (a panel update can drop hooks and menu entries).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { InstallSource } from './common.js';
import { readAllInstallRecords } from './install-record.js';
import { INSTALLERS, type PlanBuilder } from './panels.js';
import { installedFingerprint } from './release.js';
import type { ToolRunner } from './tools.js';

export interface InstallationState {
  panel: string;
  version: string;
  /** One line per problem: '/usr/local/cpanel/3rdparty/bin/wpp-hook-cpanel is missing', 'cPanel hooks are not registered'. */
  problems: string[];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function fileProblem(tools: ToolRunner, file: { path: string; sha256: string; keep?: boolean }): Promise<string | undefined> {
  const content = await readFile(tools.at(file.path), 'utf8').catch(() => undefined);
  if (content === undefined) return `${file.path} is missing`;
  if (!file.keep && sha256(content) !== file.sha256) return `${file.path} was changed since it was installed`;
  return undefined;
}

/** Every installed panel's state; an empty list when wpp was never installed with `wpp install`. */
export async function verifyInstallations(tools: ToolRunner, source: InstallSource): Promise<InstallationState[]> {
  const records = await readAllInstallRecords(tools);
  return Promise.all(
    records.map(async (record) => {
      const problems = (await Promise.all(record.files.map((file) => fileProblem(tools, file)))).filter(
        (p): p is string => p !== undefined,
      );
      // The release the launcher runs, as it was copied (a changed or removed file is a problem).
      for (const release of record.releases ?? [])
        if ((await installedFingerprint(tools.at(release.path))) !== release.fingerprint)
          problems.push(`${release.path} is not wpp ${release.version} as installed (missing, or its SHA256SUMS changed)`);
      const builder = (INSTALLERS as Record<string, PlanBuilder | undefined>)[record.panel];
      if (!builder)
        return { panel: record.panel, version: record.version, problems: [...problems, `this wpp cannot install ${record.panel}`] };
      const plan = builder(source, { panel: record.panel });
      for (const artefact of plan.artefacts) {
        if (artefact.kind !== 'registration') continue;
        const recorded = record.registrations.find((r) => r.key === artefact.key);
        const inPlace = recorded !== undefined && (await artefact.isInPlace(tools, recorded).catch(() => false));
        if (!inPlace) problems.push(`${artefact.describe}: not registered`);
      }
      return { panel: record.panel, version: record.version, problems };
    }),
  );
}
