import type { NextConfig } from 'next';

// The security headers of lib/security/headers.ts, written out: Next cannot load a module outside
// this folder from here. `npm run bench` checks that both servers send the same ones.
const securityHeaders = [
  {
    key: 'Content-Security-Policy',
    value: "frame-ancestors 'none'; object-src 'none'; base-uri 'self'; form-action 'self'",
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
  experimental: {
    staleTimes: { dynamic: 30, static: 300 },
  },
};

export default nextConfig;
