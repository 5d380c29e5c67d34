# wpp {{VERSION}}: Virtualmin's plugin API (virtual-server/virtual_feature_api.pl). wpp is a
# plugin without a feature of its own (no feature_setup): every virtual server gets its
# links, and the change events reach wpp through Virtualmin's post_command instead.
use strict;
use warnings;

sub feature_name
{
return 'Web Protection';
}

# A link in each virtual server's menu, whether or not a feature is enabled for it.
sub feature_always_links
{
my ($d) = @_;
return ( { 'mod' => 'wpp',
	   'desc' => 'Web Protection',
	   'page' => 'launch.cgi?dom='.$d->{'id'},
	   'cat' => 'services' } );
}

# An entry under System Settings, for master administrators (index.cgi checks).
sub settings_links
{
return ( { 'link' => '/wpp/index.cgi',
	   'title' => 'Web Protection',
	   'icon' => '/virtual-server/images/newfeatures.gif',
	   'cat' => 'setting' } );
}

# A reseller's entry, in the global section of the left-hand menu: System Settings (above) is
# for master administrators only. One link, or none for anyone else (Virtualmin reads the
# answer as one hash ref). index.cgi checks the reseller again.
sub feature_global_links
{
return ( ) if (!&virtual_server::reseller_admin());
return ( { 'url' => '/wpp/index.cgi',
	   'title' => 'Web Protection' } );
}

# Domain owners' Webmin users get this module, so their server's link works.
sub feature_webmin
{
return ( [ 'wpp' ] );
}

1;
