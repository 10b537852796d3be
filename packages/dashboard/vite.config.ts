import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The platform serves dist/ at / (index.html for every page path, long cache for assets/).
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // A strict Content-Security-Policy (script-src 'self') forbids inline scripts: keep the module preload polyfill out.
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
  server: {
    // `npx vite` in this folder for development: the API of a platform running on 8787.
    proxy: { '/v1': 'http://127.0.0.1:8787' },
  },
});
