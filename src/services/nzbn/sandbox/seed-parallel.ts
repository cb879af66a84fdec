/**
 * Loads chunks of generated entities in parallel worker threads, each with its own connection: the
 * generator is CPU-bound JavaScript, so one thread per core keeps the cores and the database busy.
 * Workers run the TypeScript sources through tsx's loader, as bin/rsg.js does for the main thread.
 */
import type { Worker } from 'node:worker_threads';
import { startTsWorker } from '../../../platform/ts-worker.ts';

interface Reply {
  ready?: boolean;
  chunk?: number;
  count?: number;
  error?: string;
}

function startWorker(workerData: { url: string; seed: string; size: number }): Worker {
  return startTsWorker(new URL('./seed-worker.ts', import.meta.url), { workerData });
}

/**
 * Loads `chunks` with `threads` workers; `onChunk` hears each finished chunk. Rejects on the first
 * failure (chunks already committed stay; a later run loads the rest).
 */
export async function loadChunksInParallel(options: {
  url: string;
  seed: string;
  size: number;
  chunks: number[];
  threads: number;
  onChunk: (chunk: number, count: number) => void;
}): Promise<number> {
  const queue = [...options.chunks];
  const workers = Array.from({ length: Math.min(options.threads, queue.length) }, () =>
    startWorker({ url: options.url, seed: options.seed, size: options.size }),
  );
  let loaded = 0;
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            const next = () => {
              const chunk = queue.shift();
              worker.postMessage({ chunk });
              if (chunk === undefined) resolve();
            };
            worker.on('message', (reply: Reply) => {
              if (reply.error !== undefined) return reject(new Error(`chunk ${reply.chunk}: ${reply.error}`));
              if (reply.chunk !== undefined) {
                loaded += reply.count ?? 0;
                options.onChunk(reply.chunk, reply.count ?? 0);
              }
              next();
            });
            worker.on('error', reject);
            worker.on('exit', (code) => {
              if (code !== 0) reject(new Error(`a seed worker stopped with code ${code}`));
            });
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  return loaded;
}
