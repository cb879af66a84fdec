// The types of `register-services-gateway/testing` (entry.js): the harness's own, nothing else of the
// gateway's.
import type { Sandbox, SandboxOptions } from './types.js';

export type * from './types.js';

/** Starts a sandbox gateway of its own for a test suite (docs/guide/testing-with-the-sandbox.md). */
export declare function startSandbox(options?: SandboxOptions): Promise<Sandbox>;
