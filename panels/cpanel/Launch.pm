package Cpanel::Admin::Modules::WebProtection::Launch;

# wpp's admin module (/var/cpanel/perl/Cpanel/Admin/Modules/WebProtection/Launch.pm), written by
# `wpp install cpanel`. cPanel runs it as root for a cPanel user's UAPI call (API privilege
# escalation), so wpp's settings and panel secret stay readable by root only.

use strict;
use warnings;

use parent 'Cpanel::Admin::Base';

use constant _actions => ('CUSTOMER_URL');

my $LAUNCHER = '{{LAUNCHER}}';

# A one-time sign-in URL into the pages for the account that called. The account is the one
# cPanel authenticated (get_caller_username); an argument naming one is refused, not used.
sub CUSTOMER_URL {
    my ( $self, @args ) = @_;
    die "CUSTOMER_URL takes no arguments\n" if @args;
    my $account = $self->get_caller_username();
    die "no calling cPanel account\n" if !defined $account || $account !~ /\A[A-Za-z0-9._@+-]{1,255}\z/;

    # A list, not a command line: nothing here goes through a shell.
    open( my $out, '-|', $LAUNCHER, 'launch-url', '--account', $account, '--panel', 'cpanel' )
      or die "cannot run $LAUNCHER: $!\n";
    my $url = do { local $/; <$out> };
    close $out or die "wpp launch-url failed (exit " . ( $? >> 8 ) . ")\n";
    $url = '' if !defined $url;
    $url =~ s/\s+\z//;
    die "wpp launch-url did not print a URL\n" if $url !~ m{\Ahttps?://[^\s<>"]+\z};
    return $url;
}

1;
