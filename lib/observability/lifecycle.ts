import 'server-only';
import { captureException, flush } from '@sentry/nextjs';
import type { TunnelRequest } from '@/lib/observability/tunnel';
import { getTunnel, handleTunnelRequest } from '@/lib/observability/tunnel-instance';

// server.mjs lives outside Next's bundles; it reaches the app through these process-wide slots.
const shutdownSlot = Symbol.for('app.lifecycle.shutdown');
const tunnelSlot = Symbol.for('app.lifecycle.tunnel');
type WithLifecycle = typeof globalThis & {
  [shutdownSlot]?: (timeoutMs: number) => Promise<void>;
  [tunnelSlot]?: (request: TunnelRequest) => Promise<Response>;
};

function withTimeout(work: Promise<unknown>, timeoutMs: number): Promise<unknown> {
  return Promise.race([work, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
}

/**
 * At start-up: resume delivering what the spool kept from an earlier run, and leave server.mjs a
 * way to flush pending events and stop the spool when the process is asked to stop. server.mjs
 * also answers POST /monitoring with the tunnel directly: the same handler as
 * app/monitoring/route.ts, without Next's routing, which cost 8x its throughput
 * (docs/reliability.md).
 */
export function startReportingLifecycle(): void {
  const { spool } = getTunnel();
  spool?.start();
  const slots = globalThis as WithLifecycle;
  slots[shutdownSlot] = async (timeoutMs) => {
    await withTimeout(Promise.all([flush(timeoutMs), spool?.close()]), timeoutMs);
  };
  slots[tunnelSlot] = async (request) => {
    try {
      return await handleTunnelRequest(request);
    } catch (error) {
      captureException(error);
      return new Response('The tunnel failed', { status: 500 });
    }
  };
}
