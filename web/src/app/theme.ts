import { createSystem, defaultConfig, defineConfig } from '@chakra-ui/react';

// Coffer's palette: a deep teal "vault" brand on neutral greys. `colorPalette="brand"` works on
// every Chakra recipe because the semantic tokens below follow the v3 palette contract.
const config = defineConfig({
  globalCss: {
    'html, body': { bg: 'bg.subtle', color: 'fg', minHeight: '100%' },
    '#root': { minHeight: '100vh', display: 'flex', flexDirection: 'column' },
  },
  theme: {
    tokens: {
      fonts: {
        heading: { value: `'Inter', system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif` },
        body: { value: `'Inter', system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif` },
      },
      colors: {
        brand: {
          50: { value: '#effcf9' },
          100: { value: '#c9f4ea' },
          200: { value: '#94e8d6' },
          300: { value: '#57d4bd' },
          400: { value: '#2bb8a2' },
          500: { value: '#149c89' },
          600: { value: '#0e7d70' },
          700: { value: '#0f645b' },
          800: { value: '#11504a' },
          900: { value: '#12423e' },
          950: { value: '#042826' },
        },
      },
    },
    semanticTokens: {
      colors: {
        brand: {
          solid: { value: '{colors.brand.600}' },
          contrast: { value: 'white' },
          fg: { value: { _light: '{colors.brand.700}', _dark: '{colors.brand.300}' } },
          muted: { value: { _light: '{colors.brand.100}', _dark: '{colors.brand.900}' } },
          subtle: { value: { _light: '{colors.brand.50}', _dark: '{colors.brand.950}' } },
          emphasized: { value: { _light: '{colors.brand.200}', _dark: '{colors.brand.800}' } },
          focusRing: { value: '{colors.brand.500}' },
        },
      },
    },
  },
});

export const system = createSystem(defaultConfig, config);
