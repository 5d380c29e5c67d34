/**
 * Is what listens on DirectAdmin's port DirectAdmin? Port 2222 is no privileged port: while
 * DirectAdmin is stopped (an update, a restart) any local user may listen there, and a program
 * of theirs answering "usertype=admin" would be believed. DirectAdmin's certificate cannot
 * settle it on 127.0.0.1 (it names the host), the owner of the listening socket can: the kernel
 * lists every socket with its owner's uid in /proc/net/tcp and /proc/net/tcp6, readable by any
 * process. DirectAdmin runs as root or as the owner of its binary (diradmin); a listener of
 * anyone else's, on an address that reaches the API's, means the session is not sent.
 */
import { readFile, stat } from 'node:fs/promises';
import { isIP } from 'node:net';

export const DIRECTADMIN_BINARY = '/usr/local/directadmin/directadmin';

/** TCP_LISTEN in the kernel's table. */
const LISTEN = '0A';

export interface Listener {
  /** The local address, as text (`127.0.0.1`, `0.0.0.0`, `::`, `::1`, `::ffff:127.0.0.1`). */
  address: string;
  port: number;
  uid: number;
}

/** The kernel writes each 32-bit word of an address in host (little-endian) order. */
function addressFromHex(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((word) => (word.match(/../g) ?? []).reverse().map((byte) => parseInt(byte, 16)));
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  const full = groups.join(':');
  if (full === '0:0:0:0:0:0:0:0') return '::';
  if (full === '0:0:0:0:0:0:0:1') return '::1';
  if (full.startsWith('0:0:0:0:0:ffff:')) return `::ffff:${bytes.slice(12).join('.')}`;
  return full;
}

/** The listening sockets of a /proc/net/tcp or tcp6 table. */
export function listenersIn(table: string): Listener[] {
  return table
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length >= 8 && fields[3] === LISTEN)
    .map((fields) => {
      const [addressHex = '', portHex = ''] = (fields[1] ?? '').split(':');
      return { address: addressFromHex(addressHex), port: parseInt(portHex, 16), uid: Number(fields[7]) };
    });
}

/** Addresses a connection to `host` may reach: the host itself and the wildcards. */
function reaches(listener: string, host: string): boolean {
  if (listener === host || listener === '0.0.0.0' || listener === '::') return true;
  return listener === `::ffff:${host}`;
}

/** True when something listens at host:port and every such listener belongs to a trusted uid. */
export function onlyTrustedListen(listeners: Listener[], host: string, port: number, trustedUids: readonly number[]): boolean {
  const there = listeners.filter((listener) => listener.port === port && reaches(listener.address, host));
  return there.length > 0 && there.every((listener) => trustedUids.includes(listener.uid));
}

/**
 * The real check, from /proc; for a host that is not a loopback address the certificate is
 * verified instead (directadmin-session.ts), and this says yes.
 */
export async function listenerIsDirectAdmins(apiUrl: URL): Promise<boolean> {
  const host = apiUrl.hostname.replace(/^\[|\]$/g, '');
  if (host !== 'localhost' && !(isIP(host) === 4 && host.startsWith('127.')) && host !== '::1') return true;
  const port = Number(apiUrl.port || (apiUrl.protocol === 'https:' ? 443 : 80));
  const tables = await Promise.all(['/proc/net/tcp', '/proc/net/tcp6'].map((path) => readFile(path, 'utf8').catch(() => '')));
  const owner = await stat(DIRECTADMIN_BINARY).then(
    (info) => info.uid,
    () => 0,
  );
  const listeners = tables.flatMap(listenersIn);
  // `localhost` may resolve to either: neither may be someone else's, and DirectAdmin must listen on one.
  const hosts = host === 'localhost' ? ['127.0.0.1', '::1'] : [host];
  const trusted = [0, owner];
  const untrusted = hosts.some((h) => listeners.some((l) => l.port === port && reaches(l.address, h) && !trusted.includes(l.uid)));
  return !untrusted && hosts.some((h) => onlyTrustedListen(listeners, h, port, trusted));
}
