import { defaultClientConditions, defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// In development the gateway runs separately; proxy REST and the Socket.IO websocket to it so the
// app is always same-origin with `/api`, exactly as in production (the gateway serves web/dist).
const gateway = process.env.COFFER_GATEWAY_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  // Workspace packages that export their TypeScript source under `coffer-source`
  // (@coffer/contracts) are bundled from source: no build step, one copy of each module.
  resolve: { conditions: ['coffer-source', ...defaultClientConditions] },
  server: {
    port: 5173,
    proxy: {
      '/api': { target: gateway, changeOrigin: true, ws: true },
    },
  },
  build: {
    outDir: 'dist',
    sourcemap: true,
    rollupOptions: {
      output: {
        // Libraries change less often than the app: separate chunks stay cached across releases.
        manualChunks(id) {
          if (!id.includes('node_modules')) return undefined;
          if (
            /[\\/]node_modules[\\/](@chakra-ui|@ark-ui|@zag-js|@emotion|@floating-ui|@internationalized|@pandacss)[\\/]/.test(
              id,
            )
          )
            return 'ui';
          if (
            /[\\/]node_modules[\\/](react|react-dom|react-router|scheduler|cookie|set-cookie-parser)[\\/]/.test(
              id,
            )
          )
            return 'react';
          // The dashboard's history chart loads them on demand (React.lazy): a chunk of their own.
          if (
            /[\\/]node_modules[\\/](recharts|victory-vendor|d3-[a-z-]+|internmap|decimal\.js-light|es-toolkit|eventemitter3)[\\/]/.test(
              id,
            )
          )
            return 'charts';
          return 'vendor';
        },
      },
      onwarn(warning, warn) {
        // Chakra/Ark ship 'use client' directives (for React Server Components); harmless in a SPA.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE' || warning.code === 'SOURCEMAP_ERROR') return;
        warn(warning);
      },
    },
  },
});
