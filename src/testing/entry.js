// `register-services-gateway/testing`, as a test suite imports it: the gateway's sources are
// TypeScript, so the loader (loader.js) is registered first (once a process), then the harness is
// loaded. Under a runner that transforms TypeScript itself (Vitest) the loader is simply not needed.
import { registerLoader } from './loader.js';

await registerLoader();

const testing = await import('./index.ts');

export const startSandbox = testing.startSandbox;
