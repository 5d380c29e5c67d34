/**
 * What every installation shares: the data folder, the settings file, the launcher every
 * hook and page runs, and the systemd service that runs `wpp serve`.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Artefact, RegistrationArtefact } from './artefacts.js';
import { LAYOUT } from './layout.js';
import type { ToolRunner } from './tools.js';

/** Where this copy of wpp is: the launcher runs it. */
export interface InstallSource {
  /** The Node.js binary running the installer (process.execPath). */
  nodePath: string;
  /** This package's folder (holds bin/wpp.js and dist/). */
  packageRoot: string;
  version: string;
}

/** Settings written into /etc/wpp/env when it is first created. */
export interface InstallSettings {
  panel: string;
  providerUrl?: string;
  /** Read from the installer's environment, never from its command line (visible to every user in ps). */
  providerApiKey?: string;
  publicUrl?: string;
}

/** A path or value in single quotes for sh; refuses what would need escaping rather than escape it wrongly. */
export function shellQuote(value: string): string {
  if (/['\n\r]/.test(value))
    throw new Error(`cannot install with a path or value containing a quote or line break: ${JSON.stringify(value)}`);
  return `'${value}'`;
}

export const fingerprintOf = (...parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);

export function launcherScript(source: InstallSource): string {
  return [
    '#!/bin/sh',
    `# wpp ${source.version}, written by \`wpp install\`: every hook, panel page and the service run wpp through this file.`,
    `# Settings live in ${LAYOUT.envFile}; edit that file, not this one (an install rewrites this one).`,
    `if [ -r ${LAYOUT.envFile} ]; then`,
    '  set -a',
    `  . ${LAYOUT.envFile}`,
    '  set +a',
    'fi',
    `exec ${shellQuote(source.nodePath)} ${shellQuote(`${source.packageRoot}/bin/wpp.js`)} "$@"`,
    '',
  ].join('\n');
}

/**
 * One setting, single-quoted: the launcher sources the file with sh and systemd reads it as an
 * EnvironmentFile, and both take a single-quoted value literally, so a key with a space, `$(...)`
 * or `&` (a URL's query) is neither split nor run. A quote or line break cannot be held that way
 * and is refused; the message names the setting, never its value (it may be the provider key).
 */
function setting(name: string, value: string | undefined, example: string): string {
  if (value === undefined) return `# ${name}=${example}`;
  if (/['\n\r]/.test(value))
    throw new Error(`${name} cannot contain a single quote or a line break: give it without, or write ${LAYOUT.envFile} yourself`);
  return `${name}='${value}'`;
}

export function envFileContent(settings: InstallSettings): string {
  return [
    '# wpp settings, read by the service, the hooks and the panel pages (see the README, Configuration).',
    '# Written once by `wpp install`; yours from then on: an install or uninstall never changes it.',
    '# After a change: systemctl restart wpp',
    `WPP_PANEL=${settings.panel}`,
    `WPP_DATA_DIR=${LAYOUT.dataDir}`,
    'WPP_HOST=127.0.0.1',
    'WPP_PORT=8080',
    setting('WPP_PUBLIC_URL', settings.publicUrl, 'https://panel.example.com:8443'),
    '# The provider. Without WPP_PROVIDER_URL the service is not started (it would run the embedded sandbox).',
    setting('WPP_PROVIDER_URL', settings.providerUrl, 'https://api.provider.example'),
    setting('WPP_PROVIDER_API_KEY', settings.providerApiKey, 'your-partner-key'),
    '',
  ].join('\n');
}

export function systemdUnit(source: InstallSource): string {
  return [
    '[Unit]',
    `Description=Web protection panel plugin (wpp serve, ${source.version})`,
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `EnvironmentFile=${LAYOUT.envFile}`,
    `ExecStart=${LAYOUT.launcher} serve`,
    'Restart=always',
    'RestartSec=2',
    // Secrets and the database are created owner-only whatever the caller's umask.
    'UMask=0077',
    'NoNewPrivileges=yes',
    'PrivateTmp=yes',
    'ProtectSystem=full',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

/** True when /etc/wpp/env names a provider: only then is the service started (else it would provision into a sandbox). */
async function providerConfigured(tools: ToolRunner): Promise<boolean> {
  const text = await readFile(tools.at(LAYOUT.envFile), 'utf8').catch(() => '');
  return /^\s*WPP_PROVIDER_URL=['"]?[^'"\s]/m.test(text);
}

const systemctl = (args: string[]) => ({ tool: LAYOUT.systemctl, args });

export function systemdService(unit: string): RegistrationArtefact {
  return {
    kind: 'registration',
    key: 'systemd service wpp',
    describe: `systemd service wpp.service (${LAYOUT.systemctl} enable wpp.service)`,
    fingerprint: fingerprintOf(unit),
    async register(tools) {
      await tools.check(LAYOUT.systemctl, ['daemon-reload']);
      const start = await providerConfigured(tools);
      // restart, not start: an upgrade's new unit or code must take effect.
      await tools.check(LAYOUT.systemctl, ['enable', 'wpp.service']);
      if (start) await tools.check(LAYOUT.systemctl, ['restart', 'wpp.service']);
      return {
        key: this.key,
        describe: this.describe,
        fingerprint: this.fingerprint,
        ids: [],
        undo: [systemctl(['disable', '--now', 'wpp.service'])],
        afterRemoval: [systemctl(['daemon-reload'])],
      };
    },
    async isInPlace(tools) {
      return (await tools.run(LAYOUT.systemctl, ['is-enabled', '--quiet', 'wpp.service'])).code === 0;
    },
  };
}

/** The data folder, the settings, the launcher and the service: part of every panel's installation. */
export function commonArtefacts(source: InstallSource, settings: InstallSettings): Artefact[] {
  const unit = systemdUnit(source);
  return [
    { kind: 'directory', path: LAYOUT.dataDir, mode: 0o700, data: true },
    { kind: 'directory', path: LAYOUT.configDir, mode: 0o700, data: true },
    { kind: 'file', path: LAYOUT.envFile, mode: 0o600, content: envFileContent(settings), keep: true },
    { kind: 'directory', path: LAYOUT.libDir, mode: 0o755 },
    { kind: 'file', path: LAYOUT.launcher, mode: 0o755, content: launcherScript(source) },
    { kind: 'file', path: LAYOUT.systemdUnit, mode: 0o644, content: unit },
    systemdService(unit),
  ];
}

/** Printed after an install: the service only starts once a provider is set. */
export const commonNextSteps = [
  `Set WPP_PROVIDER_URL, WPP_PROVIDER_API_KEY and WPP_PUBLIC_URL in ${LAYOUT.envFile} if they are not set, then: ${LAYOUT.systemctl} restart wpp`,
  'Check the installation: wpp doctor',
];
