import type { NextConfig } from 'next';

// The security headers of lib/security/headers.ts, written out: Next cannot load a module outside
// this folder from here. `npm run bench` checks that both servers send the same ones, the
// policy's script sources and report address aside.
const securityHeaders = [
  // The app's policy but for its scripts: the app sends per-page hashes or a nonce (from server.mjs),
  // which a bare Next app does not have, so this one allows inline scripts.
  {
    key: 'Content-Security-Policy',
    value: [
      "default-src 'self'",
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data: blob:",
      "font-src 'self' data:",
      "frame-ancestors 'none'",
      "object-src 'none'",
      "base-uri 'self'",
      "form-action 'self'",
      "script-src 'self' 'unsafe-inline'",
      "connect-src 'self'",
      "worker-src 'self' blob:",
    ].join('; '),
  },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
  {
    key: 'Permissions-Policy',
    value: 'camera=(), microphone=(), geolocation=(), payment=(), usb=(), browsing-topics=()',
  },
  { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
  { key: 'Cross-Origin-Resource-Policy', value: 'same-origin' },
];

// The app's settings that are not about error reporting, so the two differ only in Sentry.
const nextConfig: NextConfig = {
  poweredByHeader: false,
  // Served as the app is: Next's standalone server (`npm run bench` copies the static files in).
  output: 'standalone',
  headers: async () => [{ source: '/:path*', headers: securityHeaders }],
  // Turbopack compiles the repository's instrumentation.ts here too (its root is the repository),
  // though Next never runs it in this app. The name the app's server imports its SDK by resolves
  // only in the app's next.config.ts; here it is an empty module, so nothing of Sentry's server SDK
  // is compiled for it.
  turbopack: { resolveAlias: { 'sentry-nextjs-server-esm': false } },
  experimental: {
    staleTimes: { dynamic: 30, static: 300 },
  },
};

export default nextConfig;
