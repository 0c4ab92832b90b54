// What the browser may know, fixed at build time: the one place the `NEXT_PUBLIC_*` variables, and
// SENTRY_TUNNEL_PATH (passed on by next.config.ts's `env`), are read. Next inlines each such
// `process.env.*` only where it is written out by name, here.
// No zod (first-load JS budget): lib/env.ts validates the same values, read from here, when
// next.config.ts loads, so a bad one stops the build. NEXT_PUBLIC_SENTRY_RELEASE and
// NEXT_PUBLIC_SENTRY_ENVIRONMENT are derived by next.config.ts, not set by hand.

/**
 * A value as lib/env.ts reads it: trimmed, and blank is unset. Next may inline a variable it sets
 * itself as `false` when there is none (NEXT_DEPLOYMENT_ID under `next dev`).
 */
function setting(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value.trim() || undefined : undefined;
}

/** The build-time variables, by name, for lib/env.ts to validate. */
export const publicVariables = {
  NEXT_PUBLIC_SENTRY_DSN: setting(process.env.NEXT_PUBLIC_SENTRY_DSN),
  NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE: setting(process.env.NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE),
  NEXT_PUBLIC_SENTRY_SPOTLIGHT: setting(process.env.NEXT_PUBLIC_SENTRY_SPOTLIGHT),
  SENTRY_TUNNEL_PATH: setting(process.env.SENTRY_TUNNEL_PATH),
};

export const publicEnv = {
  sentryDsn: publicVariables.NEXT_PUBLIC_SENTRY_DSN,
  tracesSampleRate: Number(publicVariables.NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE ?? 0),
  spotlightUrl: publicVariables.NEXT_PUBLIC_SENTRY_SPOTLIGHT,
  environment: setting(process.env.NEXT_PUBLIC_SENTRY_ENVIRONMENT),
  release: setting(process.env.NEXT_PUBLIC_SENTRY_RELEASE),
  // Set by Next from `deploymentId` in next.config.ts (our DEPLOYMENT_ID).
  deploymentId: setting(process.env.NEXT_DEPLOYMENT_ID),
  isDevelopment: process.env.NODE_ENV === 'development',
};
