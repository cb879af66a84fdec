/**
 * Waiting for a writable stream that answered `write() === false`. Node emits `drain` only while the
 * stream is not ending: a writer that calls `end()` after a refused write (the last piece of a base64
 * element and its closing tag in one chunk) would wait for `drain` for ever. So the wait also ends when
 * the stream finishes (everything written was taken), and fails when it closes first (its consumer
 * failed or it was destroyed): never a wait without an end.
 */
import type { Writable } from 'node:stream';

export function drained(stream: Writable, closedFirst: () => Error): Promise<void> {
  if (stream.writableFinished) return Promise.resolve();
  if (stream.destroyed) return Promise.reject(closedFirst());
  // False once the stream is ending, too: what is left is the writer's `end` to wait for.
  if (!stream.writableNeedDrain) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const settle = (error?: Error) => {
      stream.off('drain', onDrain);
      stream.off('finish', onDrain);
      stream.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => settle();
    const onClose = () => settle(stream.writableFinished ? undefined : closedFirst());
    stream.on('drain', onDrain);
    stream.on('finish', onDrain);
    stream.on('close', onClose);
  });
}
