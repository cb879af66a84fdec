// The types of `register-services-gateway/testing/jest/global-setup` (global-setup.js).
import type { SandboxOptions } from '../types.js';

type GlobalSetup = (globalConfig: { maxWorkers: number }, projectConfig?: unknown) => Promise<void>;

/** A Jest `globalSetup` starting one sandbox a worker with these options (the same for every worker). */
export declare function sandboxSetup(options?: SandboxOptions): GlobalSetup;

/** Jest's `globalSetup`: one sandbox a worker, with the default options. */
declare const globalSetup: GlobalSetup;
export default globalSetup;
