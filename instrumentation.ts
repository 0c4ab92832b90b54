export async function register() {
  // NEXT_RUNTIME is set by Next per bundle (not one of ours, so not in lib/env.ts): each runtime
  // loads only its own init.
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    try {
      await import('./sentry.server.config');
      const { startReportingLifecycle } = await import('@/lib/observability/lifecycle');
      startReportingLifecycle();
      const { startContentSecurityPolicy } = await import('@/lib/security/page-policies');
      const { env } = await import('@/lib/env');
      startContentSecurityPolicy(env.NEXT_DIST_DIR);
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
