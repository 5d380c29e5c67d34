/**
 * The cPanel side of the sign-in, each file as `wpp install cpanel` writes it: the customer's
 * page (PHP, against a stub of cPanel's LiveAPI class), wpp's UAPI function and admin module
 * (Perl, against stubs of cPanel's privilege escalation), and the WHM page (Perl, against a stub
 * of Whostmgr::ACLS). A fake launcher stands in for `wpp launch-url` and records its arguments.
 * The sessions the UAPI function runs in are recorded in test/fixtures/panels/cpanel-launch/
 * (shapes and sources in test/fixtures/panels/README.md).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpanelFile } from '../../src/install/cpanel.js';
import { runPhpPage } from '../helpers/php.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const LAUNCHER = '/usr/local/lib/wpp/wpp';
let dir: string;

const write = (path: string, content: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
};

/** The installed file with its launcher replaced by the fake one. */
const withFakeLauncher = (name: string) => cpanelFile(name).replaceAll(LAUNCHER, join(dir, 'launcher'));

/** The fake launcher: logs its arguments; prints a URL naming the account or admin, or fails as $LAUNCHER_MODE says. */
function fakeLauncher(): void {
  write(
    join(dir, 'launcher'),
    [
      '#!/bin/sh',
      `echo "$*" >> '${join(dir, 'launcher.log')}'`,
      'case "${LAUNCHER_MODE:-ok}" in',
      '  fail) echo "wpp: the plugin is not configured" >&2; exit 1 ;;',
      '  junk) echo "not a url"; exit 0 ;;',
      'esac',
      'echo "https://wpp.example:8443/launch?token=for-$3"',
      '',
    ].join('\n'),
  );
  chmodSync(join(dir, 'launcher'), 0o755);
}

const launcherLog = () =>
  existsSync(join(dir, 'launcher.log')) ? readFileSync(join(dir, 'launcher.log'), 'utf8').split('\n').filter(Boolean) : [];
const clearLog = () => writeFileSync(join(dir, 'launcher.log'), '');

beforeAll(() => {
  dir = createTempDir('wpp-cpanel-pages-');
  fakeLauncher();
  // The modules where cPanel loads them, and stubs of what cPanel provides around them.
  write(join(dir, 'lib/Cpanel/API/WebProtection.pm'), withFakeLauncher('WebProtection.pm'));
  write(join(dir, 'lib/Cpanel/Admin/Modules/WebProtection/Launch.pm'), withFakeLauncher('Launch.pm'));
  write(
    join(dir, 'stubs/Cpanel/AdminBin/Call.pm'),
    `package Cpanel::AdminBin::Call;
# As cpsrvd does (Cpanel::Admin::Base::run): the admin module runs for the system user of the
# session (STUB_CPANEL_USER here), with the caller's arguments; only its _actions can be called.
# A team user's session hands TEAM_USER and TEAM_LOGIN_DOMAIN on (Cpanel::Wrap::Config), and the
# team user must exist in the owner's team file before the function runs.
use strict; use warnings;
sub call {
    my ( $namespace, $module, $action, @args ) = @_;
    my $class = "Cpanel::Admin::Modules::\${namespace}::$module";
    eval "require $class; 1" or die $@;
    die "unknown action $action\\n" if !grep { $_ eq $action } $class->_actions;
    my $owner = $ENV{STUB_CPANEL_USER};
    my $team_user;
    if ( $ENV{TEAM_USER} || $ENV{TEAM_LOGIN_DOMAIN} ) {
        require Cpanel::Team::Config;
        die "The team user $ENV{TEAM_USER} does not exist.\\n" if !Cpanel::Team::Config->new($owner)->has_team_user( $ENV{TEAM_USER} );
        $team_user = $ENV{TEAM_USER};
    }
    my $admin = bless { caller => { _username => $owner, _team_user => $team_user } }, $class;
    return $admin->$action(@args);
}
1;
`,
  );
  write(
    join(dir, 'stubs/Cpanel/Admin/Base.pm'),
    `package Cpanel::Admin::Base;
# The methods of cPanel's Cpanel::Admin::Base that wpp's module uses. cpuser_has_feature answers
# as cPanel's feature check would for the session: STUB_FEATURES lists the features it has.
use strict; use warnings;
sub get_caller_username { $_[0]{caller}{_username} }
sub get_caller_team_user { $_[0]{caller}{_team_user} }
sub cpuser_has_feature {
    my ( $self, $feature ) = @_;
    return ( grep { $_ eq $feature } split /,/, ( $ENV{STUB_FEATURES} // '' ) ) ? 1 : 0;
}
1;
`,
  );
  write(
    join(dir, 'stubs/Cpanel/Team/Config.pm'),
    `package Cpanel::Team::Config;
# cPanel's team file, read as Cpanel::Team::Config documents it: /var/cpanel/team/<owner>
# (STUB_TEAM_DIR/<owner> here), a header line, then one colon-separated line per team user whose
# third field is the comma-separated list of roles.
use strict; use warnings;
sub new {
    my ( $class, $owner ) = @_;
    open( my $fh, '<', "$ENV{STUB_TEAM_DIR}/$owner" ) or die "no team file for $owner\\n";
    my ( undef, @lines ) = map { chomp; $_ } <$fh>;
    my %roles = map { my @f = split /:/, $_, -1; ( $f[0] => [ grep { length } split /,/, $f[2] ] ) } @lines;
    return bless { roles => \\%roles }, $class;
}
sub has_team_user { exists $_[0]{roles}{ $_[1] } }
sub get_team_user_roles {
    my ( $self, $user ) = @_;
    die "The team user $user does not exist.\\n" if !exists $self->{roles}{$user};
    return $self->{roles}{$user};
}
1;
`,
  );
  write(
    join(dir, 'stubs/Cpanel/App.pm'),
    `package Cpanel::App;
# cPanel's Cpanel::App: which cpsrvd application the process serves.
our $appname = 'cpanel';
sub is_cpanel { ( $appname eq 'cpanel' || $appname eq 'cpaneld' ) ? 1 : 0 }
sub is_webmail { ( $appname eq 'webmail' || $appname eq 'webmaild' ) ? 1 : 0 }
1;
`,
  );
  write(
    join(dir, 'stubs/Whostmgr/ACLS.pm'),
    `package Whostmgr::ACLS;
# root has every privilege; a reseller the ones in STUB_RESELLER_ACLS (comma separated).
my %ACL;
sub init_acls { %ACL = $ENV{REMOTE_USER} eq 'root' ? ( all => 1 ) : map { $_ => 1 } split /,/, ( $ENV{STUB_RESELLER_ACLS} // '' ); 1 }
sub hasroot { $ACL{all} ? 1 : 0 }
sub checkacl { ( $ACL{all} || $ACL{ $_[0] } ) ? 1 : 0 }
1;
`,
  );
  write(
    join(dir, 'stubs/Cpanel/Locale.pm'),
    `package Cpanel::Locale;
# cPanel's locale system (Locale::Maketext::Utils underneath): the signed-in user's language, STUB_WHM_LOCALE here.
use strict; use warnings;
sub get_handle { bless {}, shift }
sub get_language_tag { $ENV{STUB_WHM_LOCALE} // 'en' }
1;
`,
  );
  write(join(dir, 'whm/index.cgi'), withFakeLauncher('whm-index.cgi'));
});

afterAll(() => removeTempDir(dir));

function perl(args: string[], env: Record<string, string>) {
  const run = spawnSync('perl', ['-I', join(dir, 'stubs'), '-I', join(dir, 'lib'), ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A cPanel session as recorded in test/fixtures/panels/cpanel-launch/: what cPanel's process knows of who is signed in. */
interface CpanelSession {
  /** Cpanel::App's application name: cpanel or webmail. */
  appname: string;
  /** $Cpanel::user: the cPanel account (system user) the session runs as. */
  user: string;
  /** $Cpanel::authuser: the login that signed in (a mail address in Webmail, user@domain for a team user). */
  authuser: string;
  /** TEAM_USER, TEAM_OWNER, TEAM_LOGIN_DOMAIN for a team user's session. */
  env: Record<string, string>;
  /** What cPanel's feature check answers for the session (Cpanel::Admin::Base::cpuser_has_feature). */
  features: string[];
}
const session = (name: string): CpanelSession =>
  JSON.parse(readFileSync(new URL(`../fixtures/panels/cpanel-launch/${name}.json`, import.meta.url), 'utf8')) as CpanelSession;
const TEAM_DIR = new URL('../fixtures/panels/cpanel-launch/team', import.meta.url).pathname;

interface UapiAnswer {
  ok: number;
  data: { url?: string; refused?: number } | null;
  error: string | null;
  feature: string;
}

/** UAPI WebProtection::launch_url as cPanel would call it in the session; the args object names another account, the reseller role and an admin. */
function uapiLaunchUrl(signedIn: CpanelSession, mode = 'ok', locale?: string): UapiAnswer {
  const driver = `
    use strict; use warnings; no warnings 'once'; use JSON::PP ();
    package StubResult; sub new { bless {}, shift } sub data { $_[0]{data} = $_[1] } sub raw_error { $_[0]{error} = $_[1] }
    package StubArgs; sub new { bless { account => 'mallory', role => 'reseller', reseller => 'res1', admin => 'root', ( defined $ENV{STUB_LOCALE_ARG} ? ( locale => $ENV{STUB_LOCALE_ARG} ) : () ) }, shift } sub get { $_[0]{ $_[1] } }
    package main;
    require Cpanel::App;
    $Cpanel::App::appname = $ENV{STUB_APPNAME};
    $Cpanel::user = $ENV{STUB_CPANEL_USER};
    $Cpanel::authuser = $ENV{STUB_AUTHUSER};
    require Cpanel::API::WebProtection;
    my $result = StubResult->new;
    my $ok = Cpanel::API::WebProtection::launch_url( StubArgs->new, $result );
    print JSON::PP->new->canonical->encode({ ok => $ok, data => $result->{data}, error => $result->{error},
      feature => $Cpanel::API::WebProtection::API{launch_url}{needs_feature} });`;
  const run = perl(['-e', driver], {
    STUB_APPNAME: signedIn.appname,
    STUB_CPANEL_USER: signedIn.user,
    STUB_AUTHUSER: signedIn.authuser,
    STUB_FEATURES: signedIn.features.join(','),
    STUB_TEAM_DIR: TEAM_DIR,
    ...signedIn.env,
    LAUNCHER_MODE: mode,
    ...(locale === undefined ? {} : { STUB_LOCALE_ARG: locale }),
  });
  // What the launcher says on failure goes to standard error (cPanel's error log), nothing else.
  expect(run.stderr.replace('wpp: the plugin is not configured\n', '')).toBe('');
  return JSON.parse(run.stdout) as UapiAnswer;
}

const urlFor = (account: string): UapiAnswer => ({
  ok: 1,
  data: { url: `https://wpp.example:8443/launch?token=for-${account}` },
  error: null,
  feature: 'wpp_web_protection',
});
const refusal = (error: string): UapiAnswer => ({ ok: 0, data: { refused: 1 }, error, feature: 'wpp_web_protection' });

describe('cPanel UAPI WebProtection::launch_url and its admin module', () => {
  it("returns the sign-in URL made by root for cPanel's calling account, whatever the call names", () => {
    clearLog();
    expect(uapiLaunchUrl(session('owner'))).toEqual(urlFor('alice'));
    expect(launcherLog()).toEqual(['launch-url --account alice --panel cpanel']);
  });

  it("refuses, and makes no URL, when the account's package lacks the feature (checked by the admin module itself)", () => {
    clearLog();
    expect(uapiLaunchUrl(session('feature-off'))).toEqual(
      refusal('Web Protection is not enabled for this account. Ask your hosting provider to enable it.'),
    );
    expect(launcherLog()).toEqual([]);
  });

  it('refuses Webmail sessions, a mail account or the account login itself, and makes no URL', () => {
    clearLog();
    for (const name of ['webmail', 'webmail-default-account']) {
      expect(uapiLaunchUrl(session(name)), name).toEqual(
        refusal('Web Protection is not available in Webmail. Sign in to cPanel to open it.'),
      );
    }
    expect(launcherLog()).toEqual([]);
  });

  it('gives a team user with the Administrator or Web role the URL for the account that owns the team', () => {
    clearLog();
    expect(uapiLaunchUrl(session('team-admin'))).toEqual(urlFor('alice'));
    expect(uapiLaunchUrl(session('team-web'))).toEqual(urlFor('alice'));
    expect(launcherLog()).toEqual(['launch-url --account alice --panel cpanel', 'launch-url --account alice --panel cpanel']);
  });

  it('refuses a team user whose roles do not include managing websites, and makes no URL', () => {
    clearLog();
    for (const name of ['team-email', 'team-no-role']) {
      expect(uapiLaunchUrl(session(name)), name).toEqual(
        refusal('Your team role does not include Web Protection. Ask the account owner for the Administrator or Web role.'),
      );
    }
    expect(launcherLog()).toEqual([]);
  });

  it('refuses a team user cPanel does not know, and a team session without the feature', () => {
    clearLog();
    const unknown = uapiLaunchUrl(session('team-unknown'));
    expect(unknown.ok).toBe(0);
    expect(unknown.data).toBeNull();
    const withoutFeature = uapiLaunchUrl({ ...session('team-admin'), features: [] });
    expect(withoutFeature).toEqual(refusal('Web Protection is not enabled for this account. Ask your hosting provider to enable it.'));
    expect(launcherLog()).toEqual([]);
  });

  it('refuses an account, or anything but the session the UAPI function describes, passed to the admin function', () => {
    clearLog();
    const call = (args: string) =>
      perl(['-e', `require Cpanel::AdminBin::Call; Cpanel::AdminBin::Call::call(qw(WebProtection Launch CUSTOMER_URL), ${args})`], {
        STUB_CPANEL_USER: 'alice',
        STUB_FEATURES: 'wpp_web_protection',
      });
    for (const args of [
      "'bob'",
      '()',
      "{ app => 'cpanel', authuser => 'alice', account => 'bob' }",
      "{ app => 'cpanel', authuser => 'alice', locale => 'de', account => 'bob' }",
      "{ app => 'cpanel', authuser => 'alice', role => 'reseller' }",
      "{ app => 'cpanel', authuser => 'alice', reseller => 'alice' }",
      "{ app => 'cpanel', authuser => 'alice', locale => ['de'] }",
      "{ app => 'cpanel', authuser => 'alice' }, 'bob'",
      "{ app => 'cpanel' }",
    ]) {
      const run = call(args);
      expect(run.code, args).not.toBe(0);
      expect(run.stderr, args).toContain('CUSTOMER_URL takes the calling session only');
    }
    expect(launcherLog()).toEqual([]);
  });

  it("passes the user's language (the page's locale argument) to wpp as --lang, and nothing that is not a language tag", () => {
    clearLog();
    expect(uapiLaunchUrl(session('owner'), 'ok', 'de')).toEqual(urlFor('alice'));
    expect(uapiLaunchUrl(session('team-web'), 'ok', 'es_es')).toEqual(urlFor('alice'));
    for (const junk of ['de; rm -rf /', '--admin', 'x'.repeat(60), ''])
      expect(uapiLaunchUrl(session('owner'), 'ok', junk), junk).toEqual(urlFor('alice'));
    expect(launcherLog()).toEqual([
      'launch-url --account alice --panel cpanel --lang de',
      'launch-url --account alice --panel cpanel --lang es_es',
      ...Array.from({ length: 4 }, () => 'launch-url --account alice --panel cpanel'),
    ]);
    // Straight to the admin module: the session with its language is taken, a language that is no tag is dropped.
    const call = (args: string) =>
      perl(['-e', `require Cpanel::AdminBin::Call; Cpanel::AdminBin::Call::call(qw(WebProtection Launch CUSTOMER_URL), ${args})`], {
        STUB_CPANEL_USER: 'alice',
        STUB_FEATURES: 'wpp_web_protection',
      });
    clearLog();
    expect(call("{ app => 'cpanel', authuser => 'alice', locale => 'de-AT' }").code).toBe(0);
    expect(call("{ app => 'cpanel', authuser => 'alice', locale => '--panel=x' }").code).toBe(0);
    expect(launcherLog()).toEqual(['launch-url --account alice --panel cpanel --lang de-AT', 'launch-url --account alice --panel cpanel']);
  });

  it('reports an error, and no URL, when wpp fails or prints something else', () => {
    for (const mode of ['fail', 'junk']) {
      const answer = uapiLaunchUrl(session('owner'), mode);
      expect(answer.ok).toBe(0);
      expect(answer.data).toBeNull();
      expect(answer.error).toBe('The web protection service could not be reached. Please try again in a few minutes.');
    }
  });
});

describe('the WHM page', () => {
  const cgi = (env: Record<string, string>) => {
    const run = perl([join(dir, 'whm/index.cgi')], env);
    const [head = '', body = ''] = run.stdout.split('\r\n\r\n');
    const headers = Object.fromEntries(head.split('\r\n').map((line) => line.split(': ', 2) as [string, string]));
    return { ...run, headers, body };
  };

  it('redirects root to an admin sign-in URL for root', () => {
    clearLog();
    const run = cgi({ REMOTE_USER: 'root' });
    expect(run.headers.Status).toBe('302 Found');
    expect(run.headers.Location).toBe('https://wpp.example:8443/launch?token=for-root');
    expect(launcherLog()).toEqual(['launch-url --admin root --panel whm --lang en']);
  });

  it("passes WHM's language for the user to wpp, and nothing that is not a language tag", () => {
    clearLog();
    expect(cgi({ REMOTE_USER: 'root', STUB_WHM_LOCALE: 'de' }).headers.Status).toBe('302 Found');
    expect(cgi({ REMOTE_USER: 'root', STUB_WHM_LOCALE: 'i_cpanel_snowmen' }).headers.Status).toBe('302 Found');
    expect(launcherLog()).toEqual(['launch-url --admin root --panel whm --lang de', 'launch-url --admin root --panel whm']);
  });

  it('gives a reseller with all privileges (root-equivalent) the admin pages', () => {
    clearLog();
    expect(cgi({ REMOTE_USER: 'res1', STUB_RESELLER_ACLS: 'all' }).headers.Location).toBe('https://wpp.example:8443/launch?token=for-res1');
    expect(launcherLog()).toEqual(['launch-url --admin res1 --panel whm --lang en']);
  });

  it('gives a reseller without all privileges the reseller pages for themselves, whatever the query names', () => {
    clearLog();
    const run = cgi({
      REMOTE_USER: 'res2',
      STUB_RESELLER_ACLS: 'create-acct,list-accts',
      REQUEST_METHOD: 'GET',
      QUERY_STRING: 'reseller=res3&admin=root&role=admin&user=res3',
    });
    expect(run.headers.Status).toBe('302 Found');
    expect(run.headers.Location).toBe('https://wpp.example:8443/launch?token=for-res2');
    expect(launcherLog()).toEqual(['launch-url --reseller res2 --panel whm --lang en']);
  });

  it('refuses a reseller who may not list their accounts (no list-accts), and nobody signed in, before wpp is run', () => {
    clearLog();
    const refused = cgi({ REMOTE_USER: 'res2', STUB_RESELLER_ACLS: 'create-acct' });
    expect(refused.headers.Status).toBe('403 Forbidden');
    expect(refused.headers.Location).toBeUndefined();
    expect(refused.body).toContain('List Accounts');
    expect(cgi({}).headers.Status).toBe('403 Forbidden');
    expect(launcherLog()).toEqual([]);
  });

  it('answers 502 without a Location when wpp fails', () => {
    const run = cgi({ REMOTE_USER: 'root', LAUNCHER_MODE: 'fail' });
    expect(run.headers.Status).toBe('502 Bad Gateway');
    expect(run.headers.Location).toBeUndefined();
  });
});

describe('the cPanel page (index.live.php)', () => {
  const PAGE = '/usr/local/cpanel/base/frontend/jupiter/wpp/index.live.php';
  /** cPanel's LiveAPI class, stubbed: uapi() answers for the session's user and reports the call in a header. */
  const liveApi = (answer: string) => `<?php
class CPANEL {
    public function uapi($module, $func, $args = array()) {
        header('X-Stub-Uapi: ' . $module . '::' . $func . ' ' . json_encode($args), false);
        $user = $_SERVER['REMOTE_USER'];
        if ($module === 'Locale' && $func === 'get_attributes') {
            $locale = isset($_SERVER['STUB_LOCALE']) ? $_SERVER['STUB_LOCALE'] : 'en';
            return array('cpanelresult' => array('result' => array('status' => 1, 'data' => array('locale' => $locale, 'direction' => 'ltr', 'encoding' => 'utf-8', 'name' => 'Language'))));
        }
        return ${answer};
    }
    public function end() {}
}
`;
  const ok =
    "array('cpanelresult' => array('result' => array('status' => 1, 'data' => array('url' => 'https://wpp.example:8443/launch?token=for-' . $user), 'errors' => null)))";
  const run = (answer: string, env: Record<string, string>, query = '') =>
    runPhpPage({
      scriptPath: PAGE,
      files: { [PAGE]: cpanelFile('index.live.php'), '/usr/local/cpanel/php/cpanel.php': liveApi(answer) },
      env,
      query,
    });

  it("redirects to the URL cPanel's privileged call returned for the signed-in user, naming no account itself", async () => {
    const page = await run(ok, { REMOTE_USER: 'alice' }, 'account=bob&user=bob');
    expect(page.status).toBe(302);
    expect(page.headers.location).toEqual(['https://wpp.example:8443/launch?token=for-alice']);
    expect(page.headers['x-stub-uapi']).toEqual(['Locale::get_attributes []', 'WebProtection::launch_url {"locale":"en"}']);
  }, 60_000);

  it("passes the user's cPanel language to wpp's call, and no argument when cPanel's answer is not a language tag", async () => {
    const german = await run(ok, { REMOTE_USER: 'alice', STUB_LOCALE: 'de' });
    expect(german.status).toBe(302);
    expect(german.headers['x-stub-uapi']).toEqual(['Locale::get_attributes []', 'WebProtection::launch_url {"locale":"de"}']);
    const junk = await run(ok, { REMOTE_USER: 'alice', STUB_LOCALE: 'de"><b>' });
    expect(junk.status).toBe(302);
    expect(junk.headers['x-stub-uapi']).toEqual(['Locale::get_attributes []', 'WebProtection::launch_url []']);
  }, 60_000);

  it('refuses without a signed-in user, and does not call cPanel', async () => {
    const page = await run(ok, {});
    expect(page.status).toBe(401);
    expect(page.headers.location).toBeUndefined();
    expect(page.headers['x-stub-uapi']).toBeUndefined();
    expect(page.body).toContain('Sign in to cPanel');
  }, 60_000);

  it("shows the admin module's refusal, escaped, with no redirect, when the session may not open Web Protection", async () => {
    const refused =
      "array('cpanelresult' => array('result' => array('status' => 0, 'data' => array('refused' => 1), 'errors' => array('Your team role does not include Web Protection. Ask the account owner for the <b>Administrator</b> or Web role.'))))";
    const page = await run(refused, { REMOTE_USER: 'alice' });
    expect(page.status).toBe(403);
    expect(page.headers.location).toBeUndefined();
    expect(page.body).toContain('Web Protection is not available to you');
    expect(page.body).toContain(
      'Your team role does not include Web Protection. Ask the account owner for the &lt;b&gt;Administrator&lt;/b&gt; or Web role.',
    );
  }, 60_000);

  it('shows an error page, not a redirect, when the call fails or returns something that is not a URL', async () => {
    const failed = "array('cpanelresult' => array('result' => array('status' => 0, 'data' => null, 'errors' => array('unreachable'))))";
    const header =
      "array('cpanelresult' => array('result' => array('status' => 1, 'data' => array('url' => \"https://x.example/\\r\\nSet-Cookie: a=b\"))))";
    const script = "array('cpanelresult' => array('result' => array('status' => 1, 'data' => array('url' => 'javascript:alert(1)'))))";
    for (const answer of [failed, header, script]) {
      const page = await run(answer, { REMOTE_USER: 'alice' });
      expect(page.status).toBe(502);
      expect(page.headers.location).toBeUndefined();
      expect(page.body).toContain('Web Protection is unavailable');
    }
  }, 60_000);
});
