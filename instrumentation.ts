export async function register() {
  // NEXT_RUNTIME is set by Next per bundle (not one of ours, so not in lib/env.ts): each runtime
  // loads only its own init.
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    try {
      await import('./sentry.server.config');
      const { startReportingLifecycle } = await import('@/lib/observability/lifecycle');
      startReportingLifecycle();
      const { env, isProduction } = await import('@/lib/env');
      // Each page's policy comes from the production build's output; `next dev` has none, and
      // serves the development policy from next.config.ts instead.
      if (isProduction) {
        const { startContentSecurityPolicy } = await import('@/lib/security/page-policies');
        startContentSecurityPolicy(env.NEXT_DIST_DIR);
      }
    } catch (error) {
      // An invalid environment variable (lib/env.ts) lands here. Next would log it and go on
      // answering 500s; a process that exits is one an orchestrator notices and does not route to.
      console.error(error);
      process.exit(1);
    }
  }
  if (process.env.NEXT_RUNTIME === 'edge') {
    await import('./sentry.edge.config');
  }
}

export { reportRequestError as onRequestError } from '@/lib/observability/request-error';
