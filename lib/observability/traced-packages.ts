import 'server-only';
import { GenericPoolInstrumentation } from '@opentelemetry/instrumentation-generic-pool';
import genericPool from 'generic-pool';
import genericPoolPackage from 'generic-pool/package.json';
import type { InstrumentedPackage } from '@/lib/observability/package-instrumentation';

/**
 * The client libraries the server traces, each with its OpenTelemetry instrumentation, patched at
 * start-up (lib/observability/package-instrumentation.ts): a product adds its database's, queue's
 * or cache's here, when its instrumentation patches the package's exports (one that patches files
 * inside the package is refused at start-up). Each package is also in next.config.ts's
 * `serverExternalPackages`, so the server loads one copy of it, the one patched here. Each
 * instrumentation is constructed disabled, so that it patches nothing as modules load: call this
 * inside `withoutRequireHook`.
 */
export function constructTracedPackages(): InstrumentedPackage[] {
  return [
    {
      instrumentation: new GenericPoolInstrumentation({ enabled: false }),
      name: 'generic-pool',
      version: genericPoolPackage.version,
      exports: genericPool,
    },
  ];
}
