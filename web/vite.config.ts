import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// In development the gateway runs separately; proxy REST and the Socket.IO websocket to it so the
// app is always same-origin with `/api`, exactly as in production (the gateway serves web/dist).
const gateway = process.env.COFFER_GATEWAY_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  server: {
    port: 5173,
    proxy: {
      '/api': { target: gateway, changeOrigin: true, ws: true },
    },
  },
  build: {
    outDir: 'dist',
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
  },
});
