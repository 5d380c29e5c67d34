# wpp {{VERSION}}: Virtualmin's plugin API (virtual-server/virtual_feature_api.pl). wpp is a
# feature ("Web Protection", a checkbox per top-level server; a plan's allowed features and a
# template's defaults choose it for new servers): it says whether the account's websites are
# protected. Virtualmin stores it in the server's record as wpp=1 or wpp=0, which reaches wpp as
# VIRTUALSERVER_WPP through the post_command (the change events travel that way, not through
# these calls) and in list-domains' Features. A server whose account has it turned off shows no
# wpp link (feature_always_links).
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

# Turned on or off: the links of the server's sub-servers and aliases change with it, and
# Virtualmin keeps each server's links cached until that server's own record is saved again.
sub feature_setup
{
my ($d) = @_;
&forget_sub_server_links($d);
return 1;
}

sub feature_modify
{
return 1;
}

sub feature_delete
{
my ($d) = @_;
&forget_sub_server_links($d);
return 1;
}

sub forget_sub_server_links
{
my ($d) = @_;
return if (!$d->{'id'});
# Sub-servers and aliases name their top-level server as parent. None: nothing to clear (an empty list would clear every server's).
my @under = &virtual_server::get_domain_by('parent', $d->{'id'});
&virtual_server::clear_links_cache(@under) if (@under);
}

# The account's top-level server, whose Web Protection feature holds for its sub-servers and aliases too.
sub top_level_server
{
my ($d) = @_;
return $d if (!$d->{'parent'});
return &virtual_server::get_domain($d->{'parent'}) || $d;
}

# A link in each virtual server's menu (sub-servers and aliases never have the feature: it is
# their top-level server's), except where the account's top-level server has Web Protection
# turned off (wpp=0): its package does not include it, so its customer sees no entry. A server
# from before wpp was a feature has no wpp field and keeps its link (read as the hooks read it).
sub feature_always_links
{
my ($d) = @_;
my $top = &top_level_server($d);
return ( ) if (defined($top->{'wpp'}) && $top->{'wpp'} eq '0');
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
