/**
 * What the filing and correspondence operations share: reading a validated request tree (soap/validator.ts
 * `Tree`), the App Error and Fault Error answers (HTTP 200, the published `TransactionErrorCode` with our
 * `TransactionErrorMessage` and `TransactionErrorField`), and the `Documents` element. Attachments are
 * adopted by the operations (operations/attachments.ts).
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
import type { CaseDocument } from '../domain/model.ts';
import type { BinaryValue, Tree, TreeValue } from '../soap/validator.ts';
import type { XmlTree } from '../soap/writer.ts';

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

/** The `Documents` element of an answer. */
export const documentsTree = (documents: readonly CaseDocument[]): XmlTree => ({
  Document: documents.map((d) => ({
    ObjectIdentifier: d.documentIdentifier,
    ObjectName: d.documentName,
    ObjectFormat: d.objectFormat,
    DocumentDate: d.createdOn,
  })),
});
