import { setFlagsFromString } from 'node:v8';

/**
 * Keeps the heap of a process that streams a register in or out near what it holds. An import or an
 * export holds little (a chunk of records, the statements under way) but makes garbage fast, and V8 sizes
 * its heap by the rate of garbage, not by what lives: left alone, the young generation grew to 128 MB
 * (its ceiling on a machine with a large memory) and the old generation to four times what survived a
 * collection, and `rsg import` peaked at about 450 MB for a file of 10,000 entities.
 *
 * Both flags are read by V8 at each collection, so they take effect when set in a running process: the
 * young generation stays at the size the process started with (`--min-semi-space-size=16`, `bin/rsg.js`),
 * and the old generation grows to at most twice what survived the last full collection. Measured with
 * `npm run bench:import-*` (docs/benchmarks.md): the peak falls by a third or more at no measurable cost
 * in speed. `bin/rsg.js` calls it for `rsg import` and `rsg export` before their code loads (the young
 * generation grows while modules load). A process that serves requests keeps V8's own sizing: call this
 * only in a process that streams and then ends.
 */
export function boundHeapForStreaming(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--heap-growing-percent=100');
}
