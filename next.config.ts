import { resolve } from 'node:path';
import { withSentryConfig } from '@sentry/nextjs/config';
import type { NextConfig } from 'next';
import { env, isProduction } from './lib/env';
import {
  CHANNEL_INJECTION_MODULE,
  CHANNEL_INJECTION_SWITCH,
  SENTRY_TRACING_SWITCH,
  SERVER_SDK_MODULE,
  SERVER_UTILS_ESM_MODULE,
  SERVER_UTILS_MODULE,
} from './lib/framework-internals.mjs';
import { resolveBuildRelease } from './lib/observability/build-release';
import { locateEsmEntry } from './lib/observability/locate-esm-entry';
import { ACTION_BODY_LIMIT_BYTES } from './lib/security/action-guard';
import { developmentPolicy } from './lib/security/content-security-policy';
import { securityHeaders } from './lib/security/headers';
import { DEV_TUNNEL_ROUTE } from './lib/tunnel/tunnel-path';
import { assertTunnelPathIsFree } from './lib/tunnel/tunnel-path-check';

const release = resolveBuildRelease(env.SENTRY_RELEASE);
assertTunnelPathIsFree(env.SENTRY_TUNNEL_PATH, process.cwd());

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // `next dev` serves its HMR socket and dev resources to localhost only; the same machine's
  // 127.0.0.1 is as local, and without this a page opened there gets no HMR and no hydration.
  allowedDevOrigins: ['127.0.0.1'],
  // `next build` type-checks what it builds, not the tests, e2e specs and scripts: `npm test` checks
  // those with the rest (`tsc` on tsconfig.json), and a production build need not pay for them.
  typescript: { tsconfigPath: 'tsconfig.build.json' },
  // `npm run build` completes the standalone folder (scripts/build.mjs); `npm start` and the
  // Dockerfile run it.
  output: 'standalone',
  // Sentry's server SDK is bundled into the instrumentation hook's chunk, tree-shaken to what the
  // server uses: loaded as some 600 files from node_modules it cost start-up time
  // (docs/performance.md). Everything else calls Sentry through @sentry/core (a rule in
  // biome.json), so that no other bundle holds a copy. OpenTelemetry's API stays external, one copy
  // for Next and the server's tracer (lib/observability/server-tracing.ts), and so are its
  // instrumentations. Each client library the server traces is external too: one copy, the one
  // its instrumentation patches at start-up (lib/observability/traced-packages.ts).
  serverExternalPackages: [
    '@opentelemetry/api',
    '@opentelemetry/instrumentation',
    '@opentelemetry/instrumentation-generic-pool',
    '@opentelemetry/instrumentation-undici',
    'generic-pool',
  ],
  distDir: env.NEXT_DIST_DIR,
  // Every build makes source maps and gives each chunk a debug ID, the key by which Sentry finds
  // a chunk's map. The maps stay in the build folder for an upload: scripts/build.mjs leaves them
  // out of the standalone folder, and the upload below deletes them.
  productionBrowserSourceMaps: true,
  turbopack: {
    debugIds: true,
    resolveAlias: {
      // The Node server's SDK as ES modules, which the bundler tree-shakes (lib/framework-internals.mjs).
      [SERVER_SDK_MODULE]: locateEsmEntry(process.cwd(), '@sentry/nextjs'),
      // The package that holds the SDK's tracing and framework integrations, but for those: the
      // server reports errors only through Sentry (its spans are OpenTelemetry's), the error-only
      // set keeps none of them, and the bundler cannot tell (lib/framework-internals.mjs).
      [SERVER_UTILS_MODULE]: './lib/observability/error-only-server-utils.mjs',
      [SERVER_UTILS_ESM_MODULE]: locateEsmEntry(process.cwd(), SERVER_UTILS_MODULE),
      // Sentry's runtime channel injection, which only its own tracing uses: never called
      // (sentry.server.config.ts), and left out of the build rather than loaded for nothing.
      [CHANNEL_INJECTION_MODULE]: './lib/framework-internals.mjs',
    },
  },
  compiler: {
    // Sentry's documented build-time switches: the server bundle drops the SDK's tracing code.
    defineServer: { [CHANNEL_INJECTION_SWITCH]: false, [SENTRY_TRACING_SWITCH]: false },
  },
  deploymentId: env.DEPLOYMENT_ID,
  // Build-time values the browser needs; lib/public-env.ts reads them.
  env: {
    // Fixed here even when unset (as 0): Next inlines a NEXT_PUBLIC_ variable only when the build
    // sees it, and a server that read the rate at run time could turn tracing on in a build that
    // left out what tracing needs (`resolveAlias` and `compiler` above).
    NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE: String(env.NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE),
    NEXT_PUBLIC_SENTRY_RELEASE: release ?? '',
    // Defaults to NODE_ENV, as on the server: `development` under `next dev`, else `production`.
    NEXT_PUBLIC_SENTRY_ENVIRONMENT: env.SENTRY_ENVIRONMENT ?? env.NODE_ENV,
    SENTRY_TUNNEL_PATH: env.SENTRY_TUNNEL_PATH,
  },
  // In production server.mjs answers the tunnel's path before Next routes anything.
  ...(isProduction
    ? {}
    : { rewrites: async () => ({ beforeFiles: [{ source: env.SENTRY_TUNNEL_PATH, destination: DEV_TUNNEL_ROUTE }] }) }),
  headers: async () => [
    {
      source: '/:path*',
      headers: securityHeaders({
        hstsMaxAgeSeconds: env.HSTS_MAX_AGE_SECONDS,
        // In production server.mjs sets each page's own policy (nonce or hashes); a header set
        // here would replace it.
        contentSecurityPolicy: isProduction ? undefined : developmentPolicy(env.NEXT_PUBLIC_SENTRY_SPOTLIGHT),
      }),
    },
  ],
  experimental: {
    // The original app's client router cache: dynamic pages reused for 30 s, static for 300 s.
    staleTimes: { dynamic: 30, static: 300 },
    // proxy.ts refuses larger bodies with 413 before Next would answer 500.
    serverActions: { bodySizeLimit: ACTION_BODY_LIMIT_BYTES },
  },
};

// Without an auth token the build stays offline: no release is created, no source map uploaded;
// a deploy step can upload the kept maps later (README, "Connect a real Sentry project").
const canUpload = env.SENTRY_AUTH_TOKEN !== undefined;

export default withSentryConfig(nextConfig, {
  telemetry: false,
  silent: true,
  authToken: env.SENTRY_AUTH_TOKEN,
  org: env.SENTRY_ORG,
  project: env.SENTRY_PROJECT,
  sentryUrl: env.SENTRY_URL,
  release: { name: release, create: canUpload, finalize: canUpload },
  sourcemaps: {
    disable: !canUpload,
    deleteSourcemapsAfterUpload: true,
    // The plugin's own pattern deletes only the browser's maps; the server's go too.
    filesToDeleteAfterUpload: [`${resolve(env.NEXT_DIST_DIR).replaceAll('\\', '/')}/**/*.map`],
  },
  // The hook only uploads source maps; without a token it would run for nothing.
  useRunAfterProductionCompileHook: canUpload,
  // Build-time injection of tracing channels into server dependencies (databases, queues): a
  // loader on every server module, for Sentry's own tracing only, which the server does not use
  // (its spans are OpenTelemetry's, lib/observability/server-tracing.ts).
  buildTimeInstrumentation: false,
});
