import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: {
      '@': fileURLToPath(new URL('./', import.meta.url)),
      // The real package throws outside React's server build; in unit tests every module may load.
      'server-only': fileURLToPath(new URL('./node_modules/server-only/empty.js', import.meta.url)),
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
