import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The dashboard: web/ built into dist/web, which the server serves at GET /. Everything is bundled; nothing is fetched from elsewhere at runtime.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
  },
});
