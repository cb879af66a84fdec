/**
 * A SOAP request's attachments staged: each base64 element's bytes streamed into the document store
 * under a staged name as they arrive (`openBinary`, for the envelope reader); the operation keeps those
 * it records (`keep`), and `cleanup` deletes the others once it has answered or failed.
 */
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type { DocumentStore } from '../../../platform/documents/store.ts';
import { drained } from '../../../platform/drained.ts';
import type { BinarySink, BinaryValue } from './validator.ts';
import { XsdViolation } from './validator.ts';

export interface StagedAttachments {
  /** The stored attachments, in the order they arrived. */
  staged: BinaryValue[];
  openBinary(where: string): BinarySink;
  keep(value: BinaryValue): void;
  /** Waits for the writes, then deletes every attachment not kept. */
  cleanup(): Promise<void>;
}

export function stageAttachments(documents: DocumentStore | undefined): StagedAttachments {
  const staged: BinaryValue[] = [];
  const writes: Promise<void>[] = [];
  const kept = new Set<BinaryValue>();
  const openBinary = (where: string): BinarySink => {
    if (!documents) throw new XsdViolation(where, 'this endpoint stores no documents');
    const value: BinaryValue = {
      kind: 'binary',
      documentId: `staged-${randomBytes(16).toString('hex')}`,
      size: 0,
    };
    staged.push(value);
    const pass = new PassThrough({ highWaterMark: 256 * 1024 });
    // The store may not listen yet when the request fails (abort): its error is the store's to see.
    pass.on('error', () => {});
    const stored = documents.put(value.documentId, pass).then((result) => {
      value.size = result.size;
    });
    stored.catch(() => {});
    writes.push(stored);
    return {
      value,
      write: (bytes) => pass.write(bytes),
      // Ends at `finish` too: a write refused just before the element's end would wait for ever.
      drain: () => drained(pass, () => new Error('the document store stopped reading the attachment')),
      end: async () => {
        pass.end();
        await stored;
      },
      abort: () => pass.destroy(new Error('the request failed')),
    };
  };
  const cleanup = async () => {
    if (!documents) return;
    await Promise.allSettled(writes);
    for (const value of staged)
      if (!kept.has(value)) await documents.delete(value.documentId).catch(() => false);
  };
  return { staged, openBinary, keep: (value) => kept.add(value), cleanup };
}
