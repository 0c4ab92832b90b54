import 'server-only';
import type { TracerProvider } from '@opentelemetry/api';
import { type InstrumentationBase, registerInstrumentations } from '@opentelemetry/instrumentation';
import { satisfies } from 'semver';

/** A package the server traces: its OpenTelemetry instrumentation and the package as loaded. */
export type InstrumentedPackage = {
  /** Constructed with `enabled: false`: it patches nothing as modules load. */
  instrumentation: InstrumentationBase;
  name: string;
  version: string;
  exports: unknown;
};

/**
 * Applies each instrumentation's patch to its package, now: OpenTelemetry's documented
 * definitions of what an instrumentation patches (`getModuleDefinitions`, the ones compile-time
 * instrumentation applies), not its require hook, which would cost every later `require` of the
 * process (lib/framework-internals.mjs). Throws before patching anything when a package cannot
 * be traced this way, so the server does not start without the spans it was built to record: an
 * instrumentation left enabled (it would wait for a hook that is gone), a version it has no patch
 * for, or one that patches files inside the package (those need the hook, as mongodb's and
 * redis's do). Throws, too, when a patch hands back other exports than it was given: the app
 * would keep the unpatched ones.
 */
export function instrumentPackages(tracerProvider: TracerProvider, packages: InstrumentedPackage[]): void {
  const patches = packages.map(({ instrumentation, name, version, exports }) => {
    const label = `${instrumentation.instrumentationName} on ${name} ${version}`;
    if (instrumentation.isEnabled()) throw new Error(`${label}: construct it with \`enabled: false\``);
    const definitions = instrumentation
      .getModuleDefinitions()
      .filter(
        (definition) =>
          definition.name === name &&
          definition.supportedVersions.some((range) =>
            satisfies(version, range, { includePrerelease: definition.includePrerelease }),
          ),
      );
    if (definitions.length === 0) throw new Error(`${label}: no patch for this version`);
    if (definitions.some((definition) => definition.files.length > 0)) {
      throw new Error(`${label}: patches files inside the package, which only its require hook reaches`);
    }
    return { instrumentation, label, definitions, version, exports };
  });
  for (const { instrumentation, label, definitions, version, exports } of patches) {
    instrumentation.setTracerProvider(tracerProvider);
    for (const definition of definitions) {
      if (definition.patch?.(exports, version) !== exports) throw new Error(`${label}: replaces the exports`);
    }
  }
}

/**
 * Registers instrumentations that patch no package, such as undici's, which listens on Node's
 * diagnostics channels. Throws for one that patches a package as it loads: the require hook it
 * waits for is taken out (lib/framework-internals.mjs), so it would record nothing; it belongs
 * in lib/observability/traced-packages.ts.
 */
export function registerChannelInstrumentations(
  tracerProvider: TracerProvider,
  instrumentations: InstrumentationBase[],
): void {
  for (const instrumentation of instrumentations) {
    if (instrumentation.getModuleDefinitions().length > 0) {
      throw new Error(
        `${instrumentation.instrumentationName} patches packages as they load: list it in traced-packages.ts`,
      );
    }
  }
  registerInstrumentations({ tracerProvider, instrumentations });
}
