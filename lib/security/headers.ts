// Headers every response carries, pages and route handlers alike: next.config.ts sets them on
// everything Next answers, and the tunnel adds them to its own answers (server.mjs serves it
// without Next). The Content-Security-Policy differs per page in production, so server.mjs sets
// that one (lib/security/content-security-policy.ts).

export type SecurityHeaderOptions = {
  /** Strict-Transport-Security max-age, set only when the app is served over HTTPS. */
  hstsMaxAgeSeconds: number | undefined;
  /** Left out where the policy is set per request (server.mjs, lib/security/content-security-policy.ts). */
  contentSecurityPolicy: string | undefined;
};

// Powerful features the app does not use; a script injected into it cannot ask for them either.
const PERMISSIONS_POLICY = [
  'camera=()',
  'microphone=()',
  'geolocation=()',
  'payment=()',
  'usb=()',
  'browsing-topics=()',
];

export function securityHeaders({
  hstsMaxAgeSeconds,
  contentSecurityPolicy,
}: SecurityHeaderOptions): { key: string; value: string }[] {
  const headers = [
    { key: 'X-Content-Type-Options', value: 'nosniff' },
    { key: 'X-Frame-Options', value: 'DENY' },
    { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
    { key: 'Permissions-Policy', value: PERMISSIONS_POLICY.join(', ') },
    { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
    { key: 'Cross-Origin-Resource-Policy', value: 'same-origin' },
  ];
  if (contentSecurityPolicy !== undefined) {
    headers.push({ key: 'Content-Security-Policy', value: contentSecurityPolicy });
  }
  if (hstsMaxAgeSeconds !== undefined && hstsMaxAgeSeconds > 0) {
    headers.push({ key: 'Strict-Transport-Security', value: `max-age=${hstsMaxAgeSeconds}; includeSubDomains` });
  }
  return headers;
}
