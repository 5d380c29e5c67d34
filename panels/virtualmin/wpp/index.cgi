#!/usr/bin/perl
# wpp {{VERSION}}: the "Web Protection" entry under System Settings (settings_links, master
# administrators) and in a reseller's left-hand menu (feature_global_links). Signs the signed-in
# Webmin user, and no one the request names, into wpp's admin pages if Virtualmin says they are
# a master administrator, or into the reseller pages (their own customers) if Virtualmin says
# they are a reseller; anyone else is sent away.
use strict;
use warnings;
our ($base_remote_user);
require './wpp-lib.pl';
&wpp_require_virtualmin_user();
my $role = &virtual_server::master_admin() ? '--admin' : &virtual_server::reseller_admin() ? '--reseller' : undef;
&wpp_refuse('403 Forbidden', 'Web Protection\'s settings are for the Virtualmin master administrator and resellers. Open it from your virtual server\'s menu.')
	if (!$role);
&wpp_refuse('403 Forbidden', 'That Webmin user name cannot be used.') if ($base_remote_user !~ /\A[A-Za-z0-9._@+-]{1,100}\z/);
&wpp_redirect_to_launch($role, $base_remote_user);
