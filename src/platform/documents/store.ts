/**
 * The document store: the bytes of a register's documents by identifier, behind an interface another
 * backend (an object store) can implement. Streams only: nothing here holds a document in memory. The IP
 * office keeps its downloads and the attachments of applications and task answers in one, the business
 * number register its uploaded documents; each register its own folder (location.ts), so neither reads
 * the other's bytes.
 */
import type { Readable } from 'node:stream';

export interface StoredDocument {
  size: number;
  stream: Readable;
  /**
   * Reads into the caller's buffer at a position (answers the bytes read, 0 at the end), for a reader
   * that reuses its buffers; a backend may leave it out (then `stream` is read). Use one or the other,
   * then `close`.
   */
  readInto?(target: Buffer, position: number): Promise<number>;
  close?(): Promise<void>;
}

export interface DocumentStore {
  /**
   * Stores the bytes under `id`, atomically: a reader sees the whole document or none. Replaces any
   * earlier bytes. Rejects (and stores nothing) when the stream fails.
   */
  put(id: string, bytes: AsyncIterable<Uint8Array> | Readable): Promise<{ size: number }>;
  /** The bytes as a stream, with their size; undefined when there are none. */
  get(id: string): Promise<StoredDocument | undefined>;
  exists(id: string): Promise<boolean>;
  /** Removes the bytes; false when there were none. */
  delete(id: string): Promise<boolean>;
}
