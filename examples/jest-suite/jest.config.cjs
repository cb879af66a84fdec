// A test suite of your own against the sandbox, under Jest: the global setup starts one sandbox per
// worker (its own gateway and databases) before the workers, the global teardown stops them.
module.exports = {
  rootDir: __dirname,
  testMatch: ['<rootDir>/*.test.cjs'],
  testEnvironment: 'node',
  globalSetup: 'register-services-gateway/testing/jest/global-setup',
  globalTeardown: 'register-services-gateway/testing/jest/global-teardown',
  // Plain JavaScript: nothing to transform.
  transform: {},
  maxWorkers: 2,
  testTimeout: 30_000,
};
