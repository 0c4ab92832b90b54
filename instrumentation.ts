export async function register() {
  // NEXT_RUNTIME is set by Next per bundle (not one of ours, so not in lib/env.ts): each runtime
  // loads only its own init.
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    await import('./sentry.server.config');
    const { startReportingLifecycle } = await import('@/lib/observability/lifecycle');
    startReportingLifecycle();
  }
  if (process.env.NEXT_RUNTIME === 'edge') {
    await import('./sentry.edge.config');
  }
}

export { reportRequestError as onRequestError } from '@/lib/observability/request-error';
