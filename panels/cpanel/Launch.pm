package Cpanel::Admin::Modules::WebProtection::Launch;

# wpp's admin module (/var/cpanel/perl/Cpanel/Admin/Modules/WebProtection/Launch.pm), written by
# `wpp install cpanel`. cPanel runs it as root for a cPanel user's UAPI call (API privilege
# escalation), so wpp's settings and sign-in key stay out of the customer's reach.
#
# It decides for itself who may have a sign-in URL, whatever the UAPI side checked: the account
# is the one cPanel authenticated, its package must have wpp's feature, the session must be
# cPanel's (not Webmail's: a mail account's session runs as the same system user), and a team
# user needs a role that manages websites.

use strict;
use warnings;

use parent 'Cpanel::Admin::Base';

use constant _actions => ('CUSTOMER_URL');

my $LAUNCHER = '{{LAUNCHER}}';
my $FEATURE  = '{{FEATURE}}';

# cPanel Team Manager roles (Cpanel::Team::Constants) that manage an account's websites:
# Administrator has every feature of the owner, Web the websites, domains and files. Email and
# Database do not.
my %WEBSITE_ROLES = map { $_ => 1 } qw( admin web );

my %REFUSAL = (
    webmail => 'Web Protection is not available in Webmail. Sign in to cPanel to open it.',
    other_login => 'Web Protection opens only for the cPanel account itself or its team users. Sign in to cPanel to open it.',
    team_role => 'Your team role does not include Web Protection. Ask the account owner for the Administrator or Web role.',
    feature => 'Web Protection is not enabled for this account. Ask your hosting provider to enable it.',
);

# { url } for the calling account, or { refused } with a sentence for the person signed in.
#
# The one argument describes the session as cPanel's user process knows it ({ app, authuser }):
# an admin module cannot see whether the caller is Webmail, and cPanel's own modules take that
# from their caller (Cpanel::Admin::Base, "NOTES ON WEBMAIL"). It can only narrow: the account
# is always get_caller_username, never one the call names; a team user is the one cPanel
# verified and passed in TEAM_USER.
sub CUSTOMER_URL {
    my ( $self, @args ) = @_;
    my $session = _session_or_die(@args);
    my $account = $self->get_caller_username();
    die "no calling cPanel account\n" if !defined $account || $account !~ /\A[A-Za-z0-9._@+-]{1,255}\z/;

    my $refused = $self->_refusal( $session, $account );
    return { refused => $REFUSAL{$refused} } if $refused;

    # The user's language for the pages, when the session gave a tag (wpp ignores one it cannot use).
    my @lang = defined $session->{locale} && $session->{locale} =~ /\A[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{1,8}){0,4}\z/ ? ( '--lang', $session->{locale} ) : ();

    # A list, not a command line: nothing here goes through a shell.
    open( my $out, '-|', $LAUNCHER, 'launch-url', '--account', $account, '--panel', 'cpanel', @lang )
      or die "cannot run $LAUNCHER: $!\n";
    my $url = do { local $/; <$out> };
    close $out or die "wpp launch-url failed (exit " . ( $? >> 8 ) . ")\n";
    $url = '' if !defined $url;
    $url =~ s/\s+\z//;
    die "wpp launch-url did not print a URL\n" if $url !~ m{\Ahttps?://[^\s<>"]+\z};
    return { url => $url };
}

sub _session_or_die {
    my @args    = @_;
    my $session = $args[0];
    # The session's user may add its language (locale), nothing else: never an account.
    my $shaped =
         @args == 1
      && ref $session eq 'HASH'
      && join( ',', grep { $_ ne 'locale' } sort keys %$session ) eq 'app,authuser'
      && !grep { !defined || ref } values %$session;
    die "CUSTOMER_URL takes the calling session only ({ app, authuser, and optionally locale }), never an account\n" if !$shaped;
    return $session;
}

# The reason (a key of %REFUSAL) the session may not have a URL, or undef.
sub _refusal {
    my ( $self, $session, $account ) = @_;
    return 'webmail' if $session->{app} ne 'cpanel';

    # cPanel sets TEAM_USER for a team user's session and checked that the user is on the team.
    if ( $ENV{'TEAM_USER'} || $ENV{'TEAM_LOGIN_DOMAIN'} ) {
        my $team_user = $self->get_caller_team_user();
        require Cpanel::Team::Config;
        my $roles = Cpanel::Team::Config->new($account)->get_team_user_roles($team_user);
        return 'team_role' if !grep { $WEBSITE_ROLES{ lc $_ } } @{ $roles || [] };
    }
    elsif ( $session->{authuser} ne $account ) {
        return 'other_login';
    }

    # For a team user cPanel answers with the features the team user's roles give.
    return 'feature' if !$self->cpuser_has_feature($FEATURE);
    return;
}

1;
