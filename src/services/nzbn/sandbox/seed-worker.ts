/**
 * A worker thread of the sandbox seed: holds one database connection and loads the chunks the main
 * thread hands it, one at a time (see seed-parallel.ts): generated here (seed-rows.ts), loaded by the
 * store (store/seed-load.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { loadChunk } from '../store/seed-load.ts';
import { chunkText } from './seed-rows.ts';

interface Job {
  chunk?: number;
}

const { url, seed, size } = workerData as { url: string; seed: string; size: number };
const client = new pg.Client({ connectionString: url });
await client.connect();
parentPort!.on('message', async (job: Job) => {
  if (job.chunk === undefined) {
    await client.end();
    parentPort!.close();
    return;
  }
  try {
    const count = await loadChunk(client, chunkText, seed, job.chunk, size);
    parentPort!.postMessage({ chunk: job.chunk, count });
  } catch (error) {
    parentPort!.postMessage({ chunk: job.chunk, error: (error as Error).message });
  }
});
parentPort!.postMessage({ ready: true });
