package Cpanel::API::WebProtection;

# wpp's UAPI module (/usr/local/cpanel/Cpanel/API/WebProtection.pm), written by `wpp install cpanel`.
# It runs as the cPanel user, who may not read wpp's settings or its sign-in key. The sign-in URL
# is made by wpp's admin module, which cPanel runs as root for the calling account and which
# decides for itself whether this session may have one.

use strict;
use warnings;

use Cpanel::AdminBin::Call ();
use Cpanel::App            ();

our $VERSION = '1.0';

# Only for accounts whose package has the feature the menu entry brought (Feature Manager).
our %API = ( launch_url => { needs_feature => '{{FEATURE}}' } );

# UAPI WebProtection::launch_url: { url } for the calling account, or an error. Its one
# optional argument is `locale`, the user's language (the page asks Locale::get_attributes): which
# account is cPanel's to say. It tells the admin module only what kind of session calls (cPanel
# or Webmail, and the login that signed in), which the admin module cannot see for itself, and
# the language, a tag or nothing.
sub launch_url {
    my ( $args, $result ) = @_;
    # $Cpanel::authuser is cPanel's: the login of the session (a mail address in Webmail).
    my $authuser = do { no warnings 'once'; $Cpanel::authuser } // '';
    my $session  = {
        app      => Cpanel::App::is_webmail() ? 'webmail' : Cpanel::App::is_cpanel() ? 'cpanel' : 'other',
        authuser => $authuser,
    };
    my $locale = $args->get('locale');
    $session->{locale} = $locale if defined $locale && !ref $locale && $locale =~ /\A[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{1,8}){0,4}\z/;
    my $answer = eval { Cpanel::AdminBin::Call::call( 'WebProtection', 'Launch', 'CUSTOMER_URL', $session ) };
    if ( ref $answer eq 'HASH' && defined $answer->{refused} && !ref $answer->{refused} ) {
        $result->data( { refused => 1 } );
        $result->raw_error( $answer->{refused} );
        return 0;
    }
    my $url = ref $answer eq 'HASH' ? $answer->{url} : undef;
    if ( !defined $url || ref $url || $url !~ m{\Ahttps?://[^\s<>"]+\z} ) {
        $result->raw_error('The web protection service could not be reached. Please try again in a few minutes.');
        return 0;
    }
    $result->data( { url => $url } );
    return 1;
}

1;
