import { InstrumentationBase, InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import { GenericPoolInstrumentation } from '@opentelemetry/instrumentation-generic-pool';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import genericPool from 'generic-pool';
import { instrumentPackages } from '@/lib/observability/package-instrumentation';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

/** An instrumentation whose one patch hands back other exports than it was given. */
class ReplacingInstrumentation extends InstrumentationBase {
  constructor() {
    super('replacing', '1.0.0', { enabled: false });
  }
  init() {
    return [new InstrumentationNodeModuleDefinition('some-client', ['>=1 <2'], () => ({ replaced: true }))];
  }
}

describe('instrumentPackages', () => {
  it('patches a package as it is already loaded, so that its calls are spans from then on', async () => {
    const instrumentation = new GenericPoolInstrumentation({ enabled: false });
    const pool = genericPool.createPool({ create: async () => ({}), destroy: async () => {} });
    instrumentPackages(provider, [{ instrumentation, name: 'generic-pool', version: '3.9.0', exports: genericPool }]);
    try {
      await pool.release(await pool.acquire());
      expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['generic-pool.acquire']);
    } finally {
      instrumentation.disable();
      await pool.drain();
      await pool.clear();
    }
  });

  it('refuses a version its instrumentation has no patch for, naming both', () => {
    const instrumentation = new GenericPoolInstrumentation({ enabled: false });
    expect(() =>
      instrumentPackages(provider, [{ instrumentation, name: 'generic-pool', version: '4.0.0', exports: genericPool }]),
    ).toThrow('@opentelemetry/instrumentation-generic-pool on generic-pool 4.0.0: no patch for this version');
  });

  it('refuses an instrumentation that replaces the exports it patches: the app would keep the unpatched ones', () => {
    const exports = {};
    expect(() =>
      instrumentPackages(provider, [
        { instrumentation: new ReplacingInstrumentation(), name: 'some-client', version: '1.2.0', exports },
      ]),
    ).toThrow('replacing on some-client 1.2.0: replaces the exports');
  });
});
