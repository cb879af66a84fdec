import type fc from 'fast-check';
import type { ErrorCode } from '../../src/platform/http/error-codes.ts';
import type { ServiceId } from '../../src/services/contract.ts';
import type { FingerprintedTables } from './fingerprint.ts';
import type { SignedInUser } from './oauth.ts';
import type { TestGateway } from './runtime.ts';

/**
 * What a service gives the shared harnesses (security-matrix.ts, fuzz-operations.ts): how to build its
 * gateway, the ids its paths take, and one entry per operation of its OpenAPI document, saying what the
 * operation needs beyond a subscription key and a valid example request. The harnesses find the
 * operations in the document the running gateway serves; an operation without an entry fails.
 */
export interface OperationAccess {
  /** A user's three-legged token: any signed-in user, or one holding authority over the object. */
  user?: 'any' | 'authority';
  /** The object belongs to the caller's subscription (or organisation): another subscriber's key finds nothing. */
  owned?: boolean;
  /** The operation reads `x-organisation`: one naming an organisation the caller is not in is refused. */
  organisation?: boolean;
  /** Path parameter values beyond the subject's `ids`. */
  path?: Record<string, string>;
  /** Valid query strings (without `?`): the first is the security matrix's, the fuzzer mutates them all. */
  query?: string | string[];
  /** Headers the operation's valid example needs (e.g. `If-Match` of a compliance filing). */
  headers?: Record<string, string>;
  /**
   * A valid body, or one made from the subject's `ids` (for ids known once the gateway is set up): JSON,
   * or a `Buffer` sent as it is, of the type `headers` names (a multipart upload).
   */
  body?: unknown;
  /**
   * The test file whose own matrix and fuzzer cover the operation (a SOAP operation without a JSON form:
   * its body is an envelope these harnesses do not write). The harnesses then only check it is listed.
   */
  coveredBy?: string;
  /**
   * For the conformance matrix (conformance.ts): the read answers with an ETag (and so Last-Modified
   * and 304s). Declared, a valid example answered without one fails the matrix.
   */
  etag?: boolean;
  /**
   * For the conformance matrix (conformance.ts), what a write is: `update` (the default: a change or a
   * deletion of an existing resource, which honours If-Match and If-Unmodified-Since), `create` (a new
   * resource: no current representation to hold a precondition against) or `action` (a POST that reads
   * or computes, such as a search, and changes no resource the caller addressed).
   */
  write?: 'update' | 'create' | 'action';
}

/** Values for a parameter or field: valid ones and odd ones, or an arbitrary of valid-looking ones. */
export type Values = { valid: readonly unknown[]; odd?: readonly unknown[] } | fc.Arbitrary<unknown>;

export interface ServiceSubject {
  gateway: TestGateway;
  /** A signed-in user allowed everything the operations do (holds authority over their objects). */
  owner?: SignedInUser;
  /** A signed-in user who holds no authority (else the security matrix signs one in). */
  stranger?: SignedInUser;
  /** A subscription key of the service (objects made with it in `setup` belong to it). */
  key?: string;
  /** Headers every call of the harnesses sends unless it sets them itself (the offers register's `x-organisation`). */
  headers?: Record<string, string>;
  /** Values of path parameters by name (`nzbn`, `watchlistId` …). */
  ids: Record<string, string>;
  /** What a refused call must leave unchanged (default: the sandbox tables named after the service). */
  tables?: FingerprintedTables[];
  /** The fuzzer's values for a parameter or body field, by name (else from its schema). */
  values?(name: string): Values | undefined;
  close(): Promise<void>;
}

export interface ServiceFixture {
  service: ServiceId;
  /** Another built service, whose keys must be refused here. */
  otherService: ServiceId;
  setup(): Promise<ServiceSubject>;
  /** The service's refusals in its dialect, for the operations that meet them. */
  refusals?: { noAuthority?: ErrorCode; notOwned?: ErrorCode };
  /** One entry per operation of the document, `METHOD /path` as the document writes it. */
  operations: Record<string, 'public' | OperationAccess>;
}

export const accessOf = (entry: 'public' | OperationAccess): OperationAccess =>
  entry === 'public' ? {} : entry;

export const queriesOf = (access: OperationAccess): string[] =>
  access.query === undefined ? [] : Array.isArray(access.query) ? access.query : [access.query];

/** The operation's valid body, for this subject. */
export const bodyOf = (access: OperationAccess, subject: ServiceSubject): unknown =>
  typeof access.body === 'function' ? access.body(subject.ids) : access.body;
