import {
  InstrumentationBase,
  InstrumentationNodeModuleDefinition,
  InstrumentationNodeModuleFile,
} from '@opentelemetry/instrumentation';
import { GenericPoolInstrumentation } from '@opentelemetry/instrumentation-generic-pool';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import genericPool from 'generic-pool';
import genericPoolPackage from 'generic-pool/package.json';
import { instrumentPackages, registerChannelInstrumentations } from '@/lib/observability/package-instrumentation';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const { version } = genericPoolPackage;

/** An instrumentation of `some-client` 1.x with the one definition given. */
class ClientInstrumentation extends InstrumentationBase {
  readonly #definition: InstrumentationNodeModuleDefinition;
  constructor(definition: InstrumentationNodeModuleDefinition, enabled = false) {
    super('client-instrumentation', '1.0.0', { enabled: false });
    this.#definition = definition;
    if (enabled) this.enable();
  }
  init() {
    return [];
  }
  override getModuleDefinitions() {
    return [this.#definition];
  }
}

describe('instrumentPackages', () => {
  it('patches a package as it is already loaded, so that its calls are spans from then on', async () => {
    const instrumentation = new GenericPoolInstrumentation({ enabled: false });
    const pool = genericPool.createPool({ create: async () => ({}), destroy: async () => {} });
    instrumentPackages(provider, [{ instrumentation, name: 'generic-pool', version, exports: genericPool }]);
    try {
      await pool.release(await pool.acquire());
      expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['generic-pool.acquire']);
    } finally {
      for (const definition of instrumentation.getModuleDefinitions()) definition.unpatch?.(genericPool, version);
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

  it('refuses an instrumentation left enabled, which would wait for the require hook', () => {
    const patch = vi.fn((exports: unknown) => exports);
    const instrumentation = new ClientInstrumentation(
      new InstrumentationNodeModuleDefinition('some-client', ['>=1 <2'], patch),
      true,
    );
    expect(() =>
      instrumentPackages(provider, [{ instrumentation, name: 'some-client', version: '1.2.0', exports: {} }]),
    ).toThrow('construct it with `enabled: false`');
    expect(patch).not.toHaveBeenCalled();
  });

  it('refuses, before patching anything, an instrumentation that patches files inside its package', () => {
    const patch = vi.fn((exports: unknown) => exports);
    const file = new InstrumentationNodeModuleFile('some-client/lib/connection.js', ['>=1 <2'], patch, () => {});
    const instrumentation = new ClientInstrumentation(
      new InstrumentationNodeModuleDefinition('some-client', ['>=1 <2'], patch, undefined, [file]),
    );
    expect(() =>
      instrumentPackages(provider, [{ instrumentation, name: 'some-client', version: '1.2.0', exports: {} }]),
    ).toThrow('patches files inside the package');
    expect(patch).not.toHaveBeenCalled();
  });

  it('refuses an instrumentation that replaces the exports it patches: the app would keep the unpatched ones', () => {
    const instrumentation = new ClientInstrumentation(
      new InstrumentationNodeModuleDefinition('some-client', ['>=1 <2'], () => ({ replaced: true })),
    );
    expect(() =>
      instrumentPackages(provider, [{ instrumentation, name: 'some-client', version: '1.2.0', exports: {} }]),
    ).toThrow('client-instrumentation on some-client 1.2.0: replaces the exports');
  });
});

describe('registerChannelInstrumentations', () => {
  it("registers one that patches no package, such as undici's, which listens on diagnostics channels", () => {
    const instrumentation = new UndiciInstrumentation({ enabled: false });
    registerChannelInstrumentations(provider, [instrumentation]);
    expect(instrumentation.isEnabled()).toBe(true);
    instrumentation.disable();
  });

  it('refuses one that patches a package as it loads, naming where it belongs', () => {
    expect(() =>
      registerChannelInstrumentations(provider, [new GenericPoolInstrumentation({ enabled: false })]),
    ).toThrow(
      '@opentelemetry/instrumentation-generic-pool patches packages as they load: list it in traced-packages.ts',
    );
  });
});
