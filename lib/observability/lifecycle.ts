import 'server-only';
import { flush } from '@sentry/nextjs';
import { getTunnel } from '@/lib/observability/tunnel-instance';

// server.mjs lives outside Next's bundles; it reaches the app's shutdown work through this slot.
const shutdownSlot = Symbol.for('app.lifecycle.shutdown');
type WithShutdown = typeof globalThis & { [shutdownSlot]?: (timeoutMs: number) => Promise<void> };

function withTimeout(work: Promise<unknown>, timeoutMs: number): Promise<unknown> {
  return Promise.race([work, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
}

/**
 * At start-up: resume delivering what the spool kept from an earlier run, and leave server.mjs a
 * way to flush pending events and stop the spool when the process is asked to stop.
 */
export function startReportingLifecycle(): void {
  const { spool } = getTunnel();
  spool?.start();
  (globalThis as WithShutdown)[shutdownSlot] = async (timeoutMs) => {
    await withTimeout(Promise.all([flush(timeoutMs), spool?.close()]), timeoutMs);
  };
}
