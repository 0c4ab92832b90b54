// The Node server's name for @sentry/nextjs: next.config.ts resolves it to the package's ES module
// build of the same API (lib/framework-internals.mjs, SERVER_SDK_MODULE).
declare module 'sentry-nextjs-server-esm' {
  export * from '@sentry/nextjs';
}
