import 'server-only';
import { captureException, getClient } from '@sentry/core';
import { env, isProduction } from '@/lib/env';
import { CallerSamplingBudget } from '@/lib/observability/caller-sampling-budget';
import { startRequestScopes, withRequestScopes } from '@/lib/observability/request-scopes';
import { isolateRequest, startRequestTracing } from '@/lib/observability/request-tracing';
import { serverReportingSettings } from '@/lib/observability/server-options';
import { startContentSecurityPolicy } from '@/lib/security/page-policies';
import { refusal, withSecurityHeaders } from '@/lib/server/refusal';
import { type AppServer, provideAppServer } from '@/lib/server/seam.mjs';
import { startTunnel } from '@/lib/tunnel/lifecycle';
import { keepUnansweredErrors } from '@/lib/tunnel/server-envelopes';
import { TUNNEL_PATH } from '@/lib/tunnel/tunnel-path';

/** Whether `work` settled true within `timeoutMs`. */
function isDoneWithin(work: Promise<boolean>, timeoutMs: number): Promise<boolean> {
  return Promise.race([work, new Promise<boolean>((resolve) => setTimeout(resolve, timeoutMs, false).unref())]);
}

/**
 * How server.mjs runs each request it hands over. Its scopes are its own, kept in the request's
 * context and forked only when read (lib/observability/request-scopes.ts). Under `npm start` its
 * trace is decided as it arrives (lib/observability/request-tracing.ts), and a probe's is never
 * traced (lib/observability/untraced-requests.ts); `next dev`, and any request server.mjs does not
 * hand over, are decided by the server's sampler (lib/observability/server-tracing.ts). Call it
 * after `Sentry.init`.
 */
function startRequestIsolation(sampleRate: number): AppServer['isolate'] {
  // Without a client (no DSN, no Spotlight) there is nothing to report, and no scopes to keep.
  const client = getClient();
  if (client === undefined) return (_request, work) => work();
  startRequestScopes();
  if (!isProduction || sampleRate <= 0) return (_request, work) => withRequestScopes(work);
  startRequestTracing();
  const callerBudget = new CallerSamplingBudget(sampleRate);
  return (request, work) => isolateRequest(request, sampleRate, client, work, callerBudget);
}

/**
 * At start-up, from the instrumentation hook: the server-side parts with a lifecycle, handed to
 * server.mjs (and the tunnel's route handler) through lib/server/seam.mjs. Each page's policy comes
 * from the production build's output; `next dev` has none, and serves the development policy from
 * next.config.ts instead.
 */
export function startAppServer(): void {
  // The policy first: it may refuse the build, before the spool starts delivering anything.
  const policyFor = isProduction ? startContentSecurityPolicy(env.NEXT_DIST_DIR) : undefined;
  const tunnel = startTunnel();
  const isolate = startRequestIsolation(serverReportingSettings.tracesSampleRate);
  provideAppServer({
    tunnelPath: TUNNEL_PATH,
    handleTunnel: async (request) => {
      try {
        return await tunnel.handle(request);
      } catch (error) {
        captureException(error);
        return refusal(500, 'The tunnel failed');
      }
    },
    refuse: refusal,
    secure: withSecurityHeaders,
    policyFor,
    isolate,
    spoolProblem: () => tunnel.spoolProblem(),
    // Whether the errors on their way went out or were kept. The spool keeps what it has not sent
    // for the next start, so an ingest slow to answer, or hung, loses nothing and does not make this
    // false. The SDK first: a server error ingest refuses during its flush, or has not answered by
    // its end, still goes into the spool (lib/tunnel/server-envelopes.ts), which then stops.
    shutDown: async (timeoutMs) => {
      // Without a client (no DSN, no Spotlight) there is nothing to flush.
      const isFlushed = await isDoneWithin(Promise.resolve(getClient()?.flush(timeoutMs) ?? true), timeoutMs);
      const isKept = await keepUnansweredErrors();
      await tunnel.stop(timeoutMs);
      return isFlushed || isKept;
    },
  });
}
