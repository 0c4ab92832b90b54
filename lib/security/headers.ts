// Headers every response carries, pages and route handlers alike: next.config.ts sets them on
// everything Next answers, and the tunnel adds them to its own answers (server.mjs serves it
// without Next).

export type SecurityHeaderOptions = {
  /** Strict-Transport-Security max-age, set only when the app is served over HTTPS. */
  hstsMaxAgeSeconds: number | undefined;
};

// No script-src yet: what Next's inline bootstrap scripts need is the next step. What is here
// breaks nothing Next does: no framing, no plugins, no <base> redirection, forms post home only.
const CONTENT_SECURITY_POLICY = [
  "frame-ancestors 'none'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
];

// Powerful features the app does not use; a script injected into it cannot ask for them either.
const PERMISSIONS_POLICY = [
  'camera=()',
  'microphone=()',
  'geolocation=()',
  'payment=()',
  'usb=()',
  'browsing-topics=()',
];

export function securityHeaders({ hstsMaxAgeSeconds }: SecurityHeaderOptions): { key: string; value: string }[] {
  const headers = [
    { key: 'Content-Security-Policy', value: CONTENT_SECURITY_POLICY.join('; ') },
    { key: 'X-Content-Type-Options', value: 'nosniff' },
    { key: 'X-Frame-Options', value: 'DENY' },
    { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
    { key: 'Permissions-Policy', value: PERMISSIONS_POLICY.join(', ') },
    { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
    { key: 'Cross-Origin-Resource-Policy', value: 'same-origin' },
  ];
  if (hstsMaxAgeSeconds !== undefined && hstsMaxAgeSeconds > 0) {
    headers.push({ key: 'Strict-Transport-Security', value: `max-age=${hstsMaxAgeSeconds}; includeSubDomains` });
  }
  return headers;
}
