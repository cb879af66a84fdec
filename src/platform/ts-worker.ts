import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running a TypeScript module: the module is loaded through tsx's loader, as bin/rsg.js
 * loads the sources for the main thread (there is no build step). `module` is the module's URL (say
 * `new URL('./worker.ts', import.meta.url)`); `options` go to the Worker (workerData, transferList…).
 */
export function startTsWorker(module: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const code = `import(${JSON.stringify(tsxApiUrl())}).then(({ register }) => { register(); return import(${JSON.stringify(module.href)}); })`;
  return new Worker(code, { ...options, eval: true });
}

/** tsx's ESM API (the `import` build; the pinned tsx keeps it at this path). */
function tsxApiUrl(): string {
  const packageJson = createRequire(import.meta.url).resolve('tsx/package.json');
  return pathToFileURL(packageJson.replace(/package\.json$/, 'dist/esm/api/index.mjs')).href;
}
