// The delivery thread (lib/observability/off-thread-transport.ts starts it, Next bundles it).
import { parentPort, workerData } from 'node:worker_threads';
import { makeNodeTransport } from 'sentry-nextjs-server-esm';
import { type DeliveryOptions, serveEnvelopeDelivery } from '@/lib/observability/envelope-delivery';

if (parentPort === null) throw new Error('envelope-delivery.worker.ts runs only as a worker thread');
serveEnvelopeDelivery(parentPort, workerData as DeliveryOptions, makeNodeTransport);
