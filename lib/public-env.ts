// What the browser may know, fixed at build time. Next inlines each `process.env.NEXT_PUBLIC_*`
// written out here; lib/env.ts validates the same variables when next.config.ts loads, so these
// reads stay free of zod. NEXT_PUBLIC_SENTRY_RELEASE and NEXT_PUBLIC_SENTRY_ENVIRONMENT are derived
// by next.config.ts, not set by hand.
export const publicEnv = {
  sentryDsn: process.env.NEXT_PUBLIC_SENTRY_DSN || undefined,
  tracesSampleRate: Number(process.env.NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE || 0),
  spotlightUrl: process.env.NEXT_PUBLIC_SENTRY_SPOTLIGHT || undefined,
  environment: process.env.NEXT_PUBLIC_SENTRY_ENVIRONMENT || undefined,
  release: process.env.NEXT_PUBLIC_SENTRY_RELEASE || undefined,
  // Set by Next from `deploymentId` in next.config.ts (our DEPLOYMENT_ID).
  deploymentId: process.env.NEXT_DEPLOYMENT_ID || undefined,
  isDevelopment: process.env.NODE_ENV === 'development',
};
