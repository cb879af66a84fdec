// `register-services-gateway/testing`, as a test suite imports it: the gateway's sources are
// TypeScript, so tsx's loader is registered first (once a process), then the harness is loaded. Under
// a runner that transforms TypeScript itself (Vitest) the loader is simply not needed.
import { register } from 'tsx/esm/api';

const registered = Symbol.for('register-services-gateway.tsx');
if (!globalThis[registered]) globalThis[registered] = register();

const testing = await import('./index.ts');

export const startSandbox = testing.startSandbox;
