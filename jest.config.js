// One jest setup for the whole tree: unit tests beside the code (`*.test.ts`), integration tests
// in `tests/integration` and browser tests in `tests/browser` (both start the real stack once).
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
module.exports = {
  // Integration and browser tests drive real servers; jest reads this only at the top level.
  testTimeout: 60000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{services/*,agent,contracts,deploy/local,proto,web}/src/**/*.test.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/tests/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/tests/integration/global-setup.ts',
      globalTeardown: '<rootDir>/tests/integration/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'browser',
      testMatch: ['<rootDir>/tests/browser/**/*.test.ts'],
      globalSetup: '<rootDir>/tests/integration/global-setup.ts',
      globalTeardown: '<rootDir>/tests/integration/global-teardown.ts',
    },
  ],
};
