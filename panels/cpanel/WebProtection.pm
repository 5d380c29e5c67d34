package Cpanel::API::WebProtection;

# wpp's UAPI module (/usr/local/cpanel/Cpanel/API/WebProtection.pm), written by `wpp install cpanel`.
# It runs as the cPanel user, who may not read wpp's settings or its panel secret. The sign-in URL
# is made by wpp's admin module, which cPanel runs as root for the calling account.

use strict;
use warnings;

use Cpanel::AdminBin::Call ();

our $VERSION = '1.0';

# Only for accounts whose package has the feature the menu entry brought (Feature Manager).
our %API = ( launch_url => { needs_feature => '{{FEATURE}}' } );

# UAPI WebProtection::launch_url: { url } for the calling account. It takes no arguments: which
# account is cPanel's to say, and the admin module reads it from cPanel, not from this call.
sub launch_url {
    my ( $args, $result ) = @_;
    my $url = eval { Cpanel::AdminBin::Call::call( 'WebProtection', 'Launch', 'CUSTOMER_URL' ) };
    if ( !defined $url ) {
        $result->raw_error('The web protection service could not be reached. Please try again in a few minutes.');
        return 0;
    }
    $result->data( { url => $url } );
    return 1;
}

1;
