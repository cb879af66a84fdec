/**
 * A case document opened for its download (answered by `POST /download-document`, SOAP and JSON): its
 * record and its bytes, stored, or generated on demand for a seeded document (documents/generated.ts).
 */
import type { ServiceContext } from '../../../gateway/service-context.ts';
import type { DocumentStore } from '../../../platform/documents/store.ts';
import { generatedDocument } from '../documents/generated.ts';
import { documentStoreFor } from '../documents/location.ts';
import { findDocument } from '../store/documents.ts';

/** The document's record and bytes; undefined: no document has this identifier. */
export async function openDocument(
  context: ServiceContext,
  input: { documentIdentifier: string },
  options: { documents?: DocumentStore | undefined } = {},
) {
  const id = input.documentIdentifier;
  const store = options.documents ?? documentStoreFor(context.database);
  const record = await findDocument(context.database.pool, id);
  if (!record) return undefined;
  const stored = await store.get(id);
  const generated = stored
    ? undefined
    : generatedDocument(id, record.documentName, record.objectFormat, record.markTitle);
  return {
    record,
    size: stored ? stored.size : generated!.length,
    /** The bytes as a stream (made on use: a reader of readInto never opens one). */
    source: (): AsyncIterable<Buffer | Uint8Array> =>
      stored
        ? stored.stream
        : (async function* () {
            yield generated!;
          })(),
    readInto: stored?.readInto,
    close: async () => {
      if (stored?.close) await stored.close();
      else stored?.stream.destroy();
    },
  };
}

export type OpenedDocument = NonNullable<Awaited<ReturnType<typeof openDocument>>>;
