#!/usr/bin/perl
# wpp {{VERSION}}: the "Web Protection" entry under System Settings (settings_links). Signs a
# Virtualmin master administrator into wpp's admin pages; anyone else is sent away.
use strict;
use warnings;
our ($base_remote_user);
require './wpp-lib.pl';
&wpp_require_virtualmin_user();
&wpp_refuse('403 Forbidden', 'Web Protection\'s settings are for the Virtualmin master administrator. Open it from your virtual server\'s menu.')
	if (!&virtual_server::master_admin());
&wpp_refuse('403 Forbidden', 'That Webmin user name cannot be used.') if ($base_remote_user !~ /\A[A-Za-z0-9._@+-]{1,100}\z/);
&wpp_redirect_to_launch('--admin', $base_remote_user);
