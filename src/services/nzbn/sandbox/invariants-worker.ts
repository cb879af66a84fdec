/**
 * A worker thread of the business number register's check (invariants.ts): judges the pages of
 * entities the main thread hands it (invariants-judge.ts) and answers each with its breaks.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { EntityToCheck } from '../store/invariants.ts';
import { judgePage, ruleWorld } from './invariants-judge.ts';

const world = ruleWorld((workerData as { todayMs: number }).todayMs);
parentPort!.on('message', ({ page, rows }: { page: number; rows: EntityToCheck[] }) => {
  try {
    parentPort!.postMessage({ page, found: judgePage(rows, world) });
  } catch (error) {
    parentPort!.postMessage({ page, error: (error as Error).message });
  }
});
