#!/usr/bin/env -S node --min-semi-space-size=16
// The `rsg` command. The sources are TypeScript, loaded through tsx's loader: no build step, and the
// code that runs is the code in src/.
// --min-semi-space-size=16 (also in package.json's `start`; `--workers` processes inherit it): V8's
// memory reducer shrinks the young generation to 1 MB when the process idles for a moment, and under
// load afterwards the gateway collected ten times as often, for good (README, "Operations").
// NODE_OPTIONS cannot carry this flag.
// The Node version is checked first; everything else is imported only once it is known to be supported.
import { unsupportedNode } from './node-version.js';

const problem = unsupportedNode(process.versions.node);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
const { register } = await import('tsx/esm/api');
register();
// A bulk import or export bounds its heap before the code it runs is loaded (the young generation grows
// while modules load): src/platform/transfer/heap.ts.
if (process.argv[2] === 'import' || process.argv[2] === 'export') {
  const { boundHeapForStreaming } = await import('../src/platform/transfer/heap.ts');
  boundHeapForStreaming();
}
await import('../src/cli.ts');
