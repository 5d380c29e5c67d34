# wpp {{VERSION}}: Virtualmin's plugin API (virtual-server/virtual_feature_api.pl). wpp is a
# feature ("Web Protection", a checkbox per top-level server; a plan's allowed features and a
# template's defaults choose it for new servers): it says whether the account's websites are
# protected. Virtualmin stores it in the server's record as wpp=1 or wpp=0, which reaches wpp as
# VIRTUALSERVER_WPP through the post_command (the change events travel that way, not through
# these calls) and in list-domains' Features. Every virtual server keeps its links either way.
use strict;
use warnings;

sub feature_name
{
return 'Web Protection';
}

# The feature's calls do nothing themselves: wpp acts on the post_command that follows them.
sub feature_label
{
return 'Protect the websites with Web Protection?';
}

sub feature_losing
{
return 'The websites of this server will be paused at the web protection service and removed there after the grace period';
}

sub feature_disname
{
return 'Web Protection';
}

sub feature_check
{
return undef;
}

sub feature_depends
{
return undef;
}

sub feature_clash
{
return undef;
}

# Per account: a top-level server only (its sub-servers and aliases are websites of its account).
sub feature_suitable
{
my ($parentdom, $aliasdom, $subdom) = @_;
return $parentdom || $aliasdom || $subdom ? 0 : 1;
}

sub feature_setup
{
return 1;
}

sub feature_modify
{
return 1;
}

sub feature_delete
{
return 1;
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
