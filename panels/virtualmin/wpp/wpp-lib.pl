# wpp {{VERSION}}: shared by the module's pages. Webmin runs them as root for the signed-in
# Webmin user ($base_remote_user); they sign that user, and no one else, into wpp's pages.
use strict;
use warnings;
our (%in, $base_remote_user, $current_lang, %gconfig);

BEGIN { push(@INC, '..'); }
use WebminCore;
&init_config();
&foreign_require('virtual-server', 'virtual-server-lib.pl');

our $WPP_LAUNCHER = '{{LAUNCHER}}';

# An answer without a redirect: a status and one sentence for the user.
sub wpp_refuse
{
my ($status, $text) = @_;
print "Status: $status\r\nContent-Type: text/plain; charset=utf-8\r\nCache-Control: no-store\r\n\r\n$text\n";
exit(0);
}

# Only a Webmin user who may use this module and Virtualmin: Virtualmin's default ACL grants
# everything to a user it has no ACL for, so its own checks alone would let anyone through.
sub wpp_require_virtualmin_user
{
&wpp_refuse('403 Forbidden', 'Sign in to Virtualmin first.') if (!$base_remote_user);
&wpp_refuse('403 Forbidden', 'Your Webmin user may not use Virtualmin or Web Protection.')
	if (!&foreign_available('virtual-server') || !&foreign_available('wpp'));
}

# The language Webmin shows the signed-in user, for wpp's pages to speak it too: init_config's
# $current_lang (the user's own language, else the global one), or the global %gconfig lang. A
# language tag (de, pt_BR, zh_TW.UTF-8) only; wpp keeps what it can use and reads the rest as English.
sub wpp_language_args
{
my $lang = $current_lang || $gconfig{'lang'} || '';
return $lang =~ /\A[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{1,8}){0,4}(?:\.[A-Za-z0-9-]{1,20})?\z/ ? ('--lang', $lang) : ();
}

# Runs the launcher's launch-url with the given arguments (no shell) and redirects to its URL.
sub wpp_redirect_to_launch
{
my @args = (@_, &wpp_language_args());
open(my $out, '-|', $WPP_LAUNCHER, 'launch-url', '--panel', 'virtualmin', @args)
	|| &wpp_refuse('502 Bad Gateway', 'Web Protection could not be started.');
my $url = do { local $/; <$out> };
$url = '' if (!defined($url));
my $ran = close($out);
$url =~ s/\s+\z//;
&wpp_refuse('502 Bad Gateway', 'Web Protection is not available right now. Please try again in a minute.')
	if (!$ran || $url !~ m{\Ahttps?://[^\s<>"']+\z});
print "Status: 302 Found\r\nLocation: $url\r\nCache-Control: no-store\r\n\r\n";
exit(0);
}

1;
