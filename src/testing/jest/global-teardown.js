// `register-services-gateway/testing/jest/global-teardown`, Jest's `globalTeardown`: stops the sandboxes
// `global-setup.js` started (their gateways, their databases dropped).
import { ENV, RUNNING } from './shared.js';

export default async function globalTeardown() {
  const sandboxes = globalThis[RUNNING] ?? [];
  delete globalThis[RUNNING];
  delete process.env[ENV];
  const stopped = await Promise.allSettled(sandboxes.map((sandbox) => sandbox.stop()));
  const failed = stopped.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}
