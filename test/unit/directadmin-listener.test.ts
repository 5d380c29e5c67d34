/**
 * Who listens on DirectAdmin's port, from the kernel's socket tables (/proc/net/tcp, tcp6:
 * `local_address` as hex words in host order, `st` 0A for LISTEN, the owner's `uid`). The
 * tables in test/fixtures/panels/directadmin-listener/ follow the format of proc(5) and of this
 * machine's own /proc/net/tcp; the sockets in them are invented.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { listenersIn, onlyTrustedListen } from '../../src/panel/directadmin-listener.js';

const table = (name: string) => readFileSync(new URL(`../fixtures/panels/directadmin-listener/${name}`, import.meta.url), 'utf8');
const DIRADMIN = 987;

describe("DirectAdmin's listener", () => {
  it('reads the listening sockets with their address, port and owner, and skips connections', () => {
    expect(listenersIn(table('tcp-directadmin.txt'))).toEqual([
      { address: '0.0.0.0', port: 2222, uid: 0 },
      { address: '127.0.0.1', port: 8080, uid: 998 },
    ]);
    expect(listenersIn(table('tcp6-directadmin.txt'))).toEqual([
      { address: '::', port: 2222, uid: DIRADMIN },
      { address: '::ffff:127.0.0.1', port: 2222, uid: 1001 },
    ]);
  });

  it("is DirectAdmin's when root (or DirectAdmin's own user) listens there and nobody else does", () => {
    expect(onlyTrustedListen(listenersIn(table('tcp-directadmin.txt')), '127.0.0.1', 2222, [0, DIRADMIN])).toBe(true);
  });

  it("is not when another user's program listens on 127.0.0.1:2222 (DirectAdmin stopped), or nothing does", () => {
    expect(onlyTrustedListen(listenersIn(table('tcp-squatter.txt')), '127.0.0.1', 2222, [0, DIRADMIN])).toBe(false);
    expect(onlyTrustedListen(listenersIn(table('tcp6-directadmin.txt')), '127.0.0.1', 2222, [0, DIRADMIN])).toBe(false);
    expect(onlyTrustedListen([], '127.0.0.1', 2222, [0, DIRADMIN])).toBe(false);
  });
});
