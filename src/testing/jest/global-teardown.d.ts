// The types of `register-services-gateway/testing/jest/global-teardown` (global-teardown.js).

/** Jest's `globalTeardown`: stops the sandboxes the global setup started. */
export default function globalTeardown(): Promise<void>;
