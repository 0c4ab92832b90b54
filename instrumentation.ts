import type { Instrumentation } from 'next';

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
      // (lib/framework-internals.mjs) lands here: this hook imports nothing that reads the
      // environment before this point. Next would log it and go on answering 500s; a process that
      // exits is one an orchestrator notices and does not route to. Those two say all in their
      // message; anything else keeps its stack.
      const isExplained = error instanceof Error && ['EnvError', 'FrameworkShapeError'].includes(error.name);
      console.error(isExplained ? error.message : error);
      process.exit(1);
    }
  }
  if (process.env.NEXT_RUNTIME === 'edge') {
    await import('./sentry.edge.config');
  }
}

export const onRequestError: Instrumentation.onRequestError = async (...args) => {
  // Each runtime's bundle keeps only its own branch, as in register() (Next sets NEXT_RUNTIME in
  // both): the Node server's SDK is the ES module build (next.config.ts), the edge runtime's the
  // package's edge build.
  // Imported here, not at the top: it reads the environment, whose errors register() reports.
  const { reportRequestError } = await import('@/lib/observability/request-error');
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { captureRequestError } = await import('sentry-nextjs-server-esm');
    reportRequestError(captureRequestError, ...args);
  }
  if (process.env.NEXT_RUNTIME === 'edge') {
    const { captureRequestError } = await import('@sentry/nextjs');
    reportRequestError(captureRequestError, ...args);
  }
};
