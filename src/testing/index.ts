/**
 * `register-services-gateway/testing`: the sandbox as a test tool for a suite of your own
 * (docs/guide/testing-with-the-sandbox.md).
 */
export { startSandbox } from './harness.ts';
export type {
  ClockReading,
  RegisterId,
  RegisterObject,
  Sandbox,
  SandboxClock,
  SandboxOptions,
  SandboxUser,
  SandboxUserOptions,
} from './types.ts';
