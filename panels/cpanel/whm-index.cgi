#!/usr/local/cpanel/3rdparty/bin/perl
# wpp's WHM page (/usr/local/cpanel/whostmgr/docroot/cgi/wpp/index.cgi), written by `wpp install cpanel`.
# WHM runs it as root for the signed-in WHM user (REMOTE_USER), whoever that is (the AppConfig
# entry's acls=any shows it to root and every reseller), so it checks the user's ACLs itself, as
# cPanel tells WHM plugins to. It signs that user, and no one the request names, into:
# - wpp's admin pages: root, or a reseller holding the "all" ACL (root-equivalent);
# - the reseller pages, for their own accounts: any other reseller who may list their accounts
#   (the "list-accts" ACL: the pages list them).

use strict;
use warnings;

use lib '/usr/local/cpanel';
use Whostmgr::ACLS ();

my $LAUNCHER = '{{LAUNCHER}}';

sub refuse {
    my ( $status, $text ) = @_;
    print "Status: $status\r\nContent-Type: text/plain; charset=utf-8\r\nCache-Control: no-store\r\n\r\n$text\n";
    exit 0;
}

my $user = $ENV{'REMOTE_USER'} // '';
refuse( '403 Forbidden', 'Sign in to WHM first.' ) if $user eq '';
Whostmgr::ACLS::init_acls();
my $role = Whostmgr::ACLS::hasroot() || Whostmgr::ACLS::checkacl('all') ? '--admin' : '--reseller';
if ( $role eq '--reseller' && !Whostmgr::ACLS::checkacl('list-accts') ) {
    refuse( '403 Forbidden', 'Your reseller privileges do not include List Accounts, which Web Protection needs. Ask the server administrator.' );
}
refuse( '403 Forbidden', 'That WHM user name cannot be used.' ) if $user !~ /\A[A-Za-z0-9._@+-]{1,100}\z/;

# The language WHM shows this user (cPanel's locale system); no tag, no --lang: the pages are in English.
my $locale = eval { require Cpanel::Locale; Cpanel::Locale->get_handle()->get_language_tag() } // '';
my @lang = $locale =~ /\A[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{1,8}){0,4}\z/ ? ( '--lang', $locale ) : ();

open( my $out, '-|', $LAUNCHER, 'launch-url', $role, $user, '--panel', 'whm', @lang )
  or refuse( '502 Bad Gateway', 'Web Protection could not be started.' );
my $url = do { local $/; <$out> } // '';
my $ran = close $out;
$url =~ s/\s+\z//;
refuse( '502 Bad Gateway', 'The web protection service could not be reached. Please try again in a few minutes.' )
  if !$ran || $url !~ m{\Ahttps?://[^\s<>"]+\z};

print "Status: 302 Found\r\nLocation: $url\r\nCache-Control: no-store\r\n\r\n";
