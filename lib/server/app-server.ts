import 'server-only';
import { captureException, flush, withIsolationScope } from '@sentry/nextjs';
import { env, isProduction } from '@/lib/env';
import { startContentSecurityPolicy } from '@/lib/security/page-policies';
import { provideAppServer } from '@/lib/server/seam.mjs';
import { textResponse } from '@/lib/server/text-response';
import { startTunnel } from '@/lib/tunnel/lifecycle';

function withTimeout(work: Promise<unknown>, timeoutMs: number): Promise<unknown> {
  return Promise.race([work, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
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
  provideAppServer({
    handleTunnel: async (request) => {
      try {
        return await tunnel.handle(request);
      } catch (error) {
        captureException(error);
        return textResponse(500, 'The tunnel failed');
      }
    },
    policyFor,
    isolate: (work) => withIsolationScope(() => work()),
    shutDown: async (timeoutMs) => {
      await withTimeout(Promise.all([flush(timeoutMs), tunnel.stop()]), timeoutMs);
    },
  });
}
