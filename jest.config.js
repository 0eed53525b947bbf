// One jest setup for the whole tree, in the tiers docs/engineering.md describes ("Test tiers").
const swc = [
  '@swc/jest',
  { jsc: { parser: { syntax: 'typescript' }, target: 'es2023' }, module: { type: 'commonjs' } },
];
const common = {
  transform: { '^.+\\.(t|j)sx?$': swc },
  // jose ships ES modules only; the tests run as CommonJS, so it is compiled like the sources.
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // The contracts' source, as the web app's bundler sees it: no build step before a unit test.
    '^@coffer/contracts$': '<rootDir>/contracts/src/index.ts',
  },
  testEnvironment: 'node',
};
// The whole stack, started once per run for the projects that drive it (global-setup.ts).
const stack = {
  globalSetup: '<rootDir>/tests/integration/global-setup.ts',
  globalTeardown: '<rootDir>/tests/integration/global-teardown.ts',
};
module.exports = {
  // Integration and browser tests drive real servers; jest reads this only at the top level.
  testTimeout: 60000,
  // Tiers (docs/engineering.md, "Test tiers"): unit tests touch no server and no network;
  // service tests (`*.service.test.ts`, beside the code) start the real servers they need;
  // integration and browser tests share one whole stack; faults tests kill pieces of stacks of
  // their own.
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{services/*,agent,contracts,deploy/local,proto,web}/src/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.service\\.test\\.ts$'],
    },
    {
      ...common,
      displayName: 'service',
      testMatch: ['<rootDir>/{services/*,agent,contracts,deploy/local,proto,web}/src/**/*.service.test.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/tests/integration/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/tests/integration/faults/'],
      ...stack,
    },
    {
      ...common,
      displayName: 'faults',
      testMatch: ['<rootDir>/tests/integration/faults/**/*.test.ts'],
      ...stack,
    },
    {
      ...common,
      displayName: 'browser',
      testMatch: ['<rootDir>/tests/browser/**/*.test.ts'],
      ...stack,
    },
  ],
};
