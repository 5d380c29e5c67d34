/**
 * Security headers of every answer (helmet) and the Content Security Policy of the pages:
 * scripts and styles only from the plugin itself (no inline code: chart data travels as JSON
 * in a non-executed script element); frames only from the provider's dashboard; framed only
 * by the panel origins of WPP_FRAME_ANCESTORS.
 */
import helmet from 'helmet';

export interface SecurityOptions {
  /** CSP frame-ancestors: the panel origins that may frame the pages (WPP_FRAME_ANCESTORS). */
  frameAncestors: string[];
  /** CSP frame-src: the provider dashboard's origin, for the rules editor frame; none when unknown. */
  dashboardOrigin: string | undefined;
}

export function securityHeaders({ frameAncestors, dashboardOrigin }: SecurityOptions) {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameSrc: dashboardOrigin ? [dashboardOrigin] : ["'none'"],
        frameAncestors,
      },
    },
    // X-Frame-Options can only say "same origin" or "deny"; frame-ancestors says which panels, and wins in every current browser.
    xFrameOptions: false,
    // HSTS is the TLS front's to set: sent from here it would bind every port and subdomain of the panel's host.
    strictTransportSecurity: false,
    // The launch URL carries a token and a frame URL the customer's key: neither leaves in a Referer.
    referrerPolicy: { policy: 'no-referrer' },
  });
}
