/**
 * The Virtualmin module's pages (index.cgi, launch.cgi and wpp-lib.pl, as `wpp install
 * virtualmin` writes them) run with Perl against a stub of Webmin's library: who may open them
 * is covered against the real panel (test/panels/virtualmin.test.ts); here, what they hand
 * `wpp launch-url`, the Webmin user's language included (issue 21). A fake launcher records its
 * arguments.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippedFile } from '../../src/install/shipped-file.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

let dir: string;
const moduleDir = () => join(dir, 'wpp');
const log = () => join(dir, 'launcher.log');

beforeAll(() => {
  dir = createTempDir('wpp-virtualmin-pages-');
  mkdirSync(join(dir, 'stubs'), { recursive: true });
  mkdirSync(moduleDir());
  const launcher = join(dir, 'launcher');
  writeFileSync(
    launcher,
    `#!/bin/sh\nfor a in "$@"; do printf '[%s]' "$a"; done >> '${log()}'\necho >> '${log()}'\necho 'https://wpp.example/launch?token=t'\n`,
  );
  chmodSync(launcher, 0o755);
  for (const page of ['wpp-lib.pl', 'index.cgi', 'launch.cgi', 'virtual_feature.pl'])
    writeFileSync(join(moduleDir(), page), shippedFile(`virtualmin/wpp/${page}`, { VERSION: '9.9.9', LAUNCHER: launcher }));
  // Webmin's library as the pages use it: init_config sets the signed-in user and the language
  // Webmin shows them ($current_lang: STUB_LANG; the global %gconfig lang: STUB_GLOBAL_LANG).
  writeFileSync(
    join(dir, 'stubs/WebminCore.pm'),
    `package WebminCore;
use strict; use warnings; no strict 'refs';
sub import {
    *{'main::init_config'} = sub {
        $main::base_remote_user = $ENV{REMOTE_USER};
        $main::current_lang = $ENV{STUB_LANG};
        %main::gconfig = ( lang => $ENV{STUB_GLOBAL_LANG} // 'en' );
    };
    *{'main::foreign_require'} = sub { 1 };
    *{'main::foreign_available'} = sub { 1 };
    *{'main::ReadParse'} = sub { %main::in = map { split /=/, $_, 2 } split /&/, ( $ENV{QUERY_STRING} // '' ) };
    # Virtualmin's own ACL checks (virtual-server-lib-funcs.pl): STUB_ROLE says which the Webmin user has.
    *{'virtual_server::master_admin'} = sub { ( $ENV{STUB_ROLE} // 'master' ) eq 'master' ? 1 : 0 };
    *{'virtual_server::reseller_admin'} = sub { ( $ENV{STUB_ROLE} // 'master' ) eq 'reseller' ? 1 : 0 };
    *{'virtual_server::can_edit_domain'} = sub { 1 };
    *{'virtual_server::get_domain'} = sub { { dom => 'shop.example', user => 'alice', parent => undef } };
}
1;
`,
  );
});
afterAll(() => removeTempDir(dir));

function page(name: string, env: Record<string, string>, query = '') {
  writeFileSync(log(), '');
  const run = spawnSync('perl', ['-I', join(dir, 'stubs'), name], {
    cwd: moduleDir(),
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', REMOTE_USER: 'root', QUERY_STRING: query, ...env },
  });
  expect(run.stderr).toBe('');
  return {
    location: /^Location: (.*?)\r?$/m.exec(run.stdout)?.[1],
    status: /^Status: (.*?)\r?$/m.exec(run.stdout)?.[1],
    calls: readFileSync(log(), 'utf8').split('\n').filter(Boolean),
  };
}

describe('the Virtualmin pages', () => {
  it("pass the Webmin user's language to wpp launch-url, for the admin and a virtual server's customer", () => {
    expect(page('index.cgi', { STUB_LANG: 'de' })).toEqual({
      location: 'https://wpp.example/launch?token=t',
      status: '302 Found',
      calls: ['[launch-url][--panel][virtualmin][--admin][root][--lang][de]'],
    });
    expect(page('launch.cgi', { STUB_LANG: 'es' }, 'dom=17').calls).toEqual([
      '[launch-url][--panel][virtualmin][--account][alice][--domain][shop.example][--lang][es]',
    ]);
    expect(page('index.cgi', { STUB_LANG: 'pt_BR.UTF-8' }).calls).toEqual([
      '[launch-url][--panel][virtualmin][--admin][root][--lang][pt_BR.UTF-8]',
    ]);
  });

  it("fall back to Webmin's global language, and pass nothing that is not a language tag", () => {
    expect(page('index.cgi', { STUB_GLOBAL_LANG: 'de' }).calls).toEqual(['[launch-url][--panel][virtualmin][--admin][root][--lang][de]']);
    for (const junk of ['de; rm -rf /', '--admin', 'x'.repeat(50)])
      expect(page('index.cgi', { STUB_LANG: junk, STUB_GLOBAL_LANG: '' }).calls, junk).toEqual([
        '[launch-url][--panel][virtualmin][--admin][root]',
      ]);
  });
});

describe('the Virtualmin pages and resellers', () => {
  it('sign a Virtualmin reseller into the reseller pages for their own Webmin user, whatever the query names', () => {
    expect(
      page('index.cgi', { REMOTE_USER: 'res1', STUB_ROLE: 'reseller', STUB_LANG: 'de' }, 'reseller=res2&admin=root&role=admin'),
    ).toEqual({
      location: 'https://wpp.example/launch?token=t',
      status: '302 Found',
      calls: ['[launch-url][--panel][virtualmin][--reseller][res1][--lang][de]'],
    });
  });

  it("refuse a virtual server's owner the admin and reseller pages, and run nothing", () => {
    const refused = page('index.cgi', { REMOTE_USER: 'alice', STUB_ROLE: 'owner' }, 'reseller=res1&role=reseller');
    expect(refused.status).toBe('403 Forbidden');
    expect(refused.location).toBeUndefined();
    expect(refused.calls).toEqual([]);
  });

  it("give a virtual server's owner asking for the reseller role their own account's pages only", () => {
    expect(page('launch.cgi', { REMOTE_USER: 'alice', STUB_ROLE: 'owner' }, 'dom=17&role=reseller&reseller=res1').calls).toEqual([
      '[launch-url][--panel][virtualmin][--account][alice][--domain][shop.example][--lang][en]',
    ]);
  });

  it("offer a server's link only where its account's top-level server has Web Protection on, and forget its sub-servers' cached links when it changes", () => {
    // Virtualmin's records as get_domain reads them: a sub-server or alias names its top-level server as parent;
    // only a top-level server has the feature (wpp=1 / wpp=0); a server from before wpp was a feature has no field.
    const script = `
package virtual_server;
our %d = (
  1 => { id => 1, parent => '', wpp => '1' }, 2 => { id => 2, parent => 1 },
  3 => { id => 3, parent => '', wpp => '0' }, 4 => { id => 4, parent => 3 }, 5 => { id => 5, parent => 3, alias => 3 },
  6 => { id => 6, parent => '' }, 7 => { id => 7, parent => 6 },
);
our @cleared;
sub get_domain { $d{$_[0]} }
sub get_domain_by { my ($k, $v) = @_; grep { ($_->{$k} // '') eq $v } map { $d{$_} } sort keys %d }
sub clear_links_cache { push(@cleared, join('+', map { $_->{id} } @_)) }
package wpp;
require './virtual_feature.pl';
print join(' ', map { my $id = $_; "$id:" . join(',', map { "$_->{mod}/$_->{page}" } feature_always_links($virtual_server::d{$id})) } sort keys %virtual_server::d), "\\n";
feature_delete({ %{ $virtual_server::d{1} } }); feature_setup({ %{ $virtual_server::d{3} }, wpp => 1 }); feature_setup({ id => 8, parent => '' });
print join(' ', @virtual_server::cleared), "\\n";
`;
    const run = spawnSync('perl', ['-e', script], { cwd: moduleDir(), encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect(run.stderr).toBe('');
    const [links, cleared] = run.stdout.split('\n');
    // Server 3 has Web Protection off: neither it nor its sub-server (4) nor its alias (5) offers the link.
    expect(links).toBe('1:wpp/launch.cgi?dom=1 2:wpp/launch.cgi?dom=2 3: 4: 5: 6:wpp/launch.cgi?dom=6 7:wpp/launch.cgi?dom=7');
    // Turned off on 1 (sub-server 2), on on 3 (4 and 5); a server with no sub-server clears nothing (never every server's).
    expect(cleared).toBe('2 4+5');
  });

  it("put the entry in a reseller's left-hand menu (feature_global_links), and in nobody else's", () => {
    const links = (role: string) => {
      const run = spawnSync(
        'perl',
        [
          '-e',
          "package virtual_server; sub reseller_admin { $ENV{STUB_ROLE} eq 'reseller' ? 1 : 0 } package wpp; require './virtual_feature.pl'; my @l = feature_global_links(); my $one = feature_global_links(); print join(',', map { \"$_->{url} $_->{title}\" } @l), '|', ( $one ? $one->{url} : '' );",
        ],
        { cwd: moduleDir(), encoding: 'utf8', env: { PATH: process.env.PATH ?? '', STUB_ROLE: role } },
      );
      expect(run.stderr).toBe('');
      return run.stdout;
    };
    expect(links('reseller')).toBe('/wpp/index.cgi Web Protection|/wpp/index.cgi');
    expect(links('master')).toBe('|');
    expect(links('owner')).toBe('|');
  });
});
