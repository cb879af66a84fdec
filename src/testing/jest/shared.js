// What the Jest integration's setup and teardown share: they run in Jest's process, loaded apart.
/** The workers' sandboxes, as JSON: an array, worker `n` (`JEST_WORKER_ID`) at index `n - 1`. */
export const ENV = 'RSG_JEST_SANDBOXES';
/** The running sandboxes (`Sandbox` objects) in Jest's process, between its setup and teardown. */
export const RUNNING = Symbol.for('register-services-gateway.jest-sandboxes');
