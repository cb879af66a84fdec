/**
 * Attachments an operation records (an application's documents, a task's response documents): taken
 * from the staged names the SOAP framework stored them under (soap/endpoint.ts) into the document store
 * under new document identifiers, and deleted again when the operation fails or records nothing.
 */

import type { DocumentStore } from '../../../platform/documents/store.ts';
import { RuleError } from '../../../platform/errors.ts';
import type { CaseDocument } from '../domain/model.ts';
import type { BinaryValue } from '../soap/validator.ts';
import type { FiledDocument } from '../store/applications.ts';
import { newDocumentIdentifier } from './examination.ts';

export interface Attachment {
  /** Where it was in the request, for messages. */
  field: string;
  name: string;
  format: CaseDocument['objectFormat'];
  staged: BinaryValue;
}

/**
 * Each attachment copied from its staged name to a new document identifier (a stream: the bytes are
 * never all in memory), as a case document of `on`. RuleError for an empty one. On failure the copies
 * made are deleted; the staged bytes are the framework's to delete.
 */
export async function adoptAttachments(
  documents: DocumentStore,
  attachments: readonly Attachment[],
  on: string,
): Promise<FiledDocument[]> {
  const adopted: FiledDocument[] = [];
  try {
    for (const attachment of attachments) {
      if (attachment.staged.size === 0)
        throw new RuleError(`${attachment.field}.ObjectData`, 'must not be empty');
      const stored = await documents.get(attachment.staged.documentId);
      if (!stored) throw new Error(`the staged attachment ${attachment.field} is missing`);
      const documentIdentifier = newDocumentIdentifier();
      // put consumes the stream (and destroys it on a failure of its own); close is the backstop for
      // a failure before it reads.
      await documents.put(documentIdentifier, stored.stream).finally(() => stored.close?.());
      adopted.push({
        documentIdentifier,
        documentName: attachment.name,
        objectFormat: attachment.format,
        createdOn: on,
      });
    }
    return adopted;
  } catch (error) {
    await discardDocuments(documents, adopted);
    throw error;
  }
}

/** Deletes documents whose rows were never written (a failed operation). */
export async function discardDocuments(
  documents: DocumentStore,
  adopted: readonly CaseDocument[],
): Promise<void> {
  for (const document of adopted) await documents.delete(document.documentIdentifier).catch(() => false);
}
