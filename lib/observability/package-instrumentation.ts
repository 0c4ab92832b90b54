import 'server-only';
import type { TracerProvider } from '@opentelemetry/api';
import type { InstrumentationBase } from '@opentelemetry/instrumentation';
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
 * process (lib/framework-internals.mjs). Throws when a package cannot be traced this way, so the
 * server does not start without the spans it was built to record: a version the instrumentation
 * does not support, an instrumentation that patches files inside the package (those need the
 * hook), or one that replaces the package's exports instead of patching them (the app would keep
 * the unpatched ones).
 */
export function instrumentPackages(tracerProvider: TracerProvider, packages: InstrumentedPackage[]): void {
  for (const { instrumentation, name, version, exports } of packages) {
    const definitions = instrumentation
      .getModuleDefinitions()
      .filter(
        (definition) =>
          definition.name === name &&
          definition.supportedVersions.some((range) =>
            satisfies(version, range, { includePrerelease: definition.includePrerelease }),
          ),
      );
    const label = `${instrumentation.instrumentationName} on ${name} ${version}`;
    if (definitions.length === 0) throw new Error(`${label}: no patch for this version`);
    instrumentation.setTracerProvider(tracerProvider);
    for (const definition of definitions) {
      if (definition.files.length > 0) throw new Error(`${label}: patches files inside the package`);
      if (definition.patch?.(exports, version) !== exports) throw new Error(`${label}: replaces the exports`);
    }
  }
}
