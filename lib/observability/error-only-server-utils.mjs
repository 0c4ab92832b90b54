// @sentry/server-utils as the server build sees it: next.config.ts resolves the package's name to
// this file (lib/framework-internals.mjs). The package as it is, but for its two
// lists of integrations, of which the error-only set keeps nothing: left out here, they are left
// out of the bundle.
export * from 'sentry-server-utils-esm';
export {
  listNoFrameworkIntegrations as getErrorIntegrations,
  refuseTracingIntegrations as getTracingIntegrations,
} from '../framework-internals.mjs';
