/**
 * What the filing and correspondence operations share: reading a validated request tree (soap/validator.ts
 * `Tree`), the App Error and Fault Error answers (HTTP 200, the published `TransactionErrorCode` with our
 * `TransactionErrorMessage` and `TransactionErrorField`), and attachments taken from their staged names
 * into the document store under new document identifiers.
 *
 * Ours: a broken rule (RuleError) is `App Error` naming the field; an unexpected failure of ours is
 * `Fault Error` (logged; nothing was written: the operation's transaction rolled back); refusals of the
 * caller (not registered, no token, billing) stay SOAP Faults with their HTTP status, as every operation
 * of the gateway refuses them.
 */
import type { FastifyRequest } from 'fastify';
import { RuleError } from '../../../platform/errors.ts';
import { clientWentAway } from '../../../platform/http/client-gone.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import type { DocumentStore } from '../documents/store.ts';
import type { CaseDocument } from '../domain/model.ts';
import { newDocumentIdentifier } from '../jobs/examination.ts';
import type { BinaryValue, Tree, TreeValue } from '../soap/validator.ts';
import type { XmlTree } from '../soap/writer.ts';
import type { FiledDocument } from '../store/applications.ts';

export const NS = 'http://www.iponz.govt.nz/services';
/** The refusals these operations answer as SOAP Faults, for the OpenAPI document. */
export const REFUSAL_FAULTS: Record<number, string> = {
  401: 'A SOAP Fault: the operation acts for a registered user and needs their three-legged token',
  403: 'A SOAP Fault: the user is not registered with the office (not-registered-user), or the fee cannot be charged (billing-organisation-required, direct-debit-authority-required)',
};

/** Ours: an application or a task answer with attachments is at most 200 MiB of XML (base64 included). */
export const ATTACHMENTS_MAX_BYTES = 200 * 1024 * 1024;

const isTree = (value: TreeValue | undefined): value is Tree =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  (value as { kind?: unknown }).kind !== 'binary';

/** A child element's text, or undefined when absent. */
export function textOf(tree: Tree, name: string): string | undefined {
  const value = tree[name];
  return typeof value === 'string' ? value : undefined;
}

/** A child element's subtree, or undefined. */
export function treeOf(tree: Tree, name: string): Tree | undefined {
  const value = tree[name];
  return isTree(value) ? value : undefined;
}

/** A repeated child's subtrees (one, many or none). */
export function treesOf(tree: Tree, name: string): Tree[] {
  const value = tree[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter(isTree);
}

/** A base64 child's stored bytes, or undefined. */
export function binaryOf(tree: Tree, name: string): BinaryValue | undefined {
  const value = tree[name];
  return typeof value === 'object' && !Array.isArray(value) && (value as BinaryValue).kind === 'binary'
    ? (value as BinaryValue)
    : undefined;
}

/** `xs:boolean` text as a boolean. */
export const booleanOf = (text: string | undefined): boolean => text === 'true' || text === '1';

/** An App Error or Fault Error answer's fields, from what a handler threw; rethrows refusals and faults. */
export function errorFields(error: unknown, request: FastifyRequest): XmlTree {
  if (error instanceof HttpError) throw error;
  // A client gone mid-request: the endpoint logs it as that (toHttpError), not as our failure.
  if (clientWentAway(request, error)) throw error;
  // A refusal written as a rule with its own code (billing's 403s) is a refusal of the caller: a Fault.
  if (error instanceof RuleError && error.code.status !== 400) throw error;
  if (error instanceof RuleError)
    return {
      TransactionErrorCode: 'App Error',
      TransactionErrorMessage: error.message,
      TransactionErrorField: error.field,
    };
  request.log.error({ err: error }, 'IP office SOAP operation failed');
  return {
    TransactionErrorCode: 'Fault Error',
    TransactionErrorMessage:
      'The office could not complete the transaction; nothing was recorded. Try again later.',
  };
}

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

/** The `Documents` element of an answer. */
export const documentsTree = (documents: readonly CaseDocument[]): XmlTree => ({
  Document: documents.map((d) => ({
    ObjectIdentifier: d.documentIdentifier,
    ObjectName: d.documentName,
    ObjectFormat: d.objectFormat,
    DocumentDate: d.createdOn,
  })),
});
