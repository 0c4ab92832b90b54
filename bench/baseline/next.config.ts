import type { NextConfig } from 'next';

// The app's settings that are not about error reporting, so the two differ only in Sentry.
const nextConfig: NextConfig = {
  poweredByHeader: false,
  experimental: {
    staleTimes: { dynamic: 30, static: 300 },
  },
};

export default nextConfig;
