import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import { SERVER_UTILS_ESM_MODULE, SERVER_UTILS_MODULE } from './lib/framework-internals.mjs';

export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: {
      '@': fileURLToPath(new URL('./', import.meta.url)),
      // The real package throws outside React's server build; in unit tests every module may load.
      'server-only': fileURLToPath(new URL('./node_modules/server-only/empty.js', import.meta.url)),
      // The package's ES module build, as next.config.ts resolves it for
      // lib/observability/error-only-server-utils.mjs.
      [SERVER_UTILS_ESM_MODULE]: fileURLToPath(import.meta.resolve(SERVER_UTILS_MODULE)),
    },
  },
  test: {
    include: ['{app,components,lib,scripts}/**/*.test.{ts,tsx}'],
    environment: 'node',
    globals: true,
    restoreMocks: true,
    clearMocks: true,
  },
});
