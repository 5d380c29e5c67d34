/**
 * A Webmin/Virtualmin skeleton below a test root, as `wpp install virtualmin` finds a real one:
 * virtual-server's library (how the installer knows Virtualmin is there), its module config
 * holding another vendor's plugin, and webmin.acl with two users of Virtualmin and one without.
 * The installer's registration script is the real one and runs below the root.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const VIRTUALMIN_PATHS = {
  module: '/usr/share/webmin/wpp',
  config: '/etc/webmin/virtual-server/config',
  acl: '/etc/webmin/webmin.acl',
  lib: '/usr/share/webmin/virtual-server/virtual-server-lib.pl',
} as const;

export const VIRTUALMIN_CONFIG_TEXT = 'home_base=/home\npre_command=\nplugins=virtualmin-awstats\nquotas=0\n';
export const VIRTUALMIN_ACL_TEXT = 'root: acl useradmin virtual-server webmin\nreseller1: virtual-server\nbob: useradmin\n';

export function fakeVirtualmin(root: string): void {
  mkdirSync(join(root, '/usr/share/webmin/virtual-server'), { recursive: true });
  writeFileSync(join(root, VIRTUALMIN_PATHS.lib), '1;\n');
  mkdirSync(join(root, '/etc/webmin/virtual-server'), { recursive: true });
  writeFileSync(join(root, VIRTUALMIN_PATHS.config), VIRTUALMIN_CONFIG_TEXT, { mode: 0o600 });
  writeFileSync(join(root, VIRTUALMIN_PATHS.acl), VIRTUALMIN_ACL_TEXT, { mode: 0o600 });
}
