export async function register() {
  // NEXT_RUNTIME is set by Next per bundle (not one of ours, so not in lib/env.ts): each runtime
  // loads only its own init.
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    try {
      await import('./sentry.server.config');
      const { startAppServer } = await import('@/lib/server/app-server');
      startAppServer();
    } catch (error) {
      // An invalid environment variable (lib/env.ts) or a changed framework shape
      // (lib/framework-internals.mjs) lands here. Next would log it and go on answering 500s; a
      // process that exits is one an orchestrator notices and does not route to.
      console.error(error);
      process.exit(1);
    }
  }
  if (process.env.NEXT_RUNTIME === 'edge') {
    await import('./sentry.edge.config');
  }
}

export { reportRequestError as onRequestError } from '@/lib/observability/request-error';
