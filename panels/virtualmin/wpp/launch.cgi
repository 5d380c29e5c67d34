#!/usr/bin/perl
# wpp {{VERSION}}: a virtual server's "Web Protection" link (feature_always_links). Signs the
# signed-in Webmin user into the pages of the server's account, only when Virtualmin lets that
# user edit the server (its owner, a reseller of it, a master admin).
use strict;
use warnings;
our (%in);
require './wpp-lib.pl';
&ReadParse();
&wpp_require_virtualmin_user();
&wpp_refuse('400 Bad Request', 'Open this page from a virtual server\'s menu.') if (($in{'dom'} // '') !~ /\A\d+\z/);
my $d = &virtual_server::get_domain($in{'dom'});
&wpp_refuse('403 Forbidden', 'You may not manage this virtual server.') if (!$d || !&virtual_server::can_edit_domain($d));
# The account is the top-level server's Unix user, which sub-servers and aliases share.
my $top = $d->{'parent'} ? &virtual_server::get_domain($d->{'parent'}) : $d;
my $account = $top ? $top->{'user'} : '';
&wpp_refuse('403 Forbidden', 'This virtual server has no account.') if (!defined($account) || $account !~ /\A[A-Za-z0-9._@+-]{1,255}\z/);
my $dom = $d->{'dom'} // '';
&wpp_refuse('400 Bad Request', 'This virtual server has no domain name.') if ($dom !~ /\A[A-Za-z0-9.-]{1,253}\z/);
&wpp_redirect_to_launch('--account', $account, '--domain', $dom);
