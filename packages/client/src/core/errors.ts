/**
 * Errors as typed values, one kind per dialect a register answers in: the business number register's
 * `errorCode` and `list`, problem+json (RFC 9457) with its `errors`, API Management's gateway bodies
 * (`{statusCode, message}`: a missing key, a limit, an unknown operation), SOAP 1.1 faults, and the IP
 * office's SOAP answers that report a failure with HTTP 200 (`TransactionErrorCode`). `kind` tells them
 * apart; every one is a `RegisterError` with the status, the request id and the raw body.
 */
import { XMLParser } from 'fast-xml-parser';

export interface FieldProblem {
  field: string;
  message: string;
}

interface Common {
  /** HTTP status of the answer (200 for the IP office's failures reported in the body). */
  status: number;
  /** The gateway's request id of the call (`api-business-govt-nz-Request-Id`), when it answered one. */
  requestId: string | undefined;
  /** The body as received. */
  body: string;
}

/** The business number register's dialect: `{status, errorCode, errorDescription, list}`. */
export interface NzbnErrorBody extends Common {
  kind: 'nzbn';
  errorCode: string;
  errorDescription: string;
  list: FieldProblem[];
}

/** problem+json: `type` ends with `#<code>`, `errors` names each field. */
export interface ProblemErrorBody extends Common {
  kind: 'problem';
  type: string;
  /** The code after `#` in `type` (e.g. `precondition-failed`). */
  code: string;
  title: string;
  detail: string;
  errors: FieldProblem[];
}

/** API Management's own answer (the gateway's: key, limit, unknown operation, timeout). */
export interface GatewayErrorBody extends Common {
  kind: 'gateway';
  message: string;
}

/** A SOAP 1.1 fault. */
export interface SoapFaultBody extends Common {
  kind: 'soap-fault';
  faultCode: string;
  faultString: string;
  code: string | undefined;
  errors: FieldProblem[];
}

/** The IP office's HTTP 200 answer that reports a failure: `App Error` (the request) or `Fault Error`. */
export interface TransactionErrorBody extends Common {
  kind: 'transaction-error';
  transactionErrorCode: string;
  message: string;
  /** The request's field the failure names (`TransactionErrorField`), when the answer names one. */
  field: string | undefined;
}

/** Any other failure (a proxy's page, an answer that is not in any dialect). */
export interface UnknownErrorBody extends Common {
  kind: 'unknown';
}

export type ErrorDetails =
  | NzbnErrorBody
  | ProblemErrorBody
  | GatewayErrorBody
  | SoapFaultBody
  | TransactionErrorBody
  | UnknownErrorBody;

export class RegisterError extends Error {
  override readonly name: string = 'RegisterError';
  constructor(readonly details: ErrorDetails) {
    super(describe(details));
  }
  get status(): number {
    return this.details.status;
  }
  get kind(): ErrorDetails['kind'] {
    return this.details.kind;
  }
}

/** 412: the resource changed since its ETag was read. Read it again, then decide. */
export class PreconditionFailedError extends RegisterError {
  override readonly name = 'PreconditionFailedError';
  constructor(
    details: ErrorDetails,
    /** The ETag the write sent (`If-Match`). */
    readonly sentEtag: string | undefined,
  ) {
    super(details);
  }
}

/** The call gave up before an answer: the client's own timeout, or the network failed. */
export class NoAnswerError extends Error {
  override readonly name = 'NoAnswerError';
  constructor(
    message: string,
    readonly timedOut: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

function describe(details: ErrorDetails): string {
  switch (details.kind) {
    case 'nzbn':
      return `${details.status} ${details.errorCode}: ${details.errorDescription}`;
    case 'problem':
      return `${details.status} ${details.code}: ${details.detail}`;
    case 'gateway':
      return `${details.status}: ${details.message}`;
    case 'soap-fault':
      return `${details.status} ${details.faultCode}: ${details.faultString}`;
    case 'transaction-error':
      return `${details.transactionErrorCode}: ${details.message}`;
    case 'unknown':
      return `${details.status}: ${details.body.slice(0, 200)}`;
  }
}

const asProblems = (value: unknown): FieldProblem[] =>
  Array.isArray(value)
    ? value.map((item) => ({ field: String(item?.field ?? ''), message: String(item?.message ?? '') }))
    : [];

const xml = new XMLParser({ removeNSPrefix: true, parseTagValue: false, ignoreAttributes: true });

/** The typed error of a failed answer, from its status, content type and body. */
export function errorOf(
  status: number,
  contentType: string,
  body: string,
  requestId: string | undefined,
): ErrorDetails {
  const common = { status, requestId, body };
  if (/xml/.test(contentType)) return soapFaultOf(common) ?? { kind: 'unknown', ...common };
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body);
  } catch {
    return { kind: 'unknown', ...common };
  }
  if (typeof json !== 'object' || json === null) return { kind: 'unknown', ...common };
  if (typeof json.errorCode === 'string') {
    return {
      kind: 'nzbn',
      ...common,
      errorCode: json.errorCode,
      errorDescription: String(json.errorDescription ?? ''),
      list: asProblems(json.list),
    };
  }
  if (contentType.startsWith('application/problem+json') || typeof json.type === 'string') {
    const type = String(json.type ?? 'about:blank');
    return {
      kind: 'problem',
      ...common,
      type,
      code: type.includes('#') ? type.slice(type.indexOf('#') + 1) : type,
      title: String(json.title ?? ''),
      detail: String(json.detail ?? ''),
      errors: asProblems(json.errors),
    };
  }
  if (typeof json.statusCode === 'number' && typeof json.message === 'string') {
    return { kind: 'gateway', ...common, message: json.message };
  }
  return { kind: 'unknown', ...common };
}

function soapFaultOf(common: Common): SoapFaultBody | undefined {
  let parsed: Record<string, unknown>;
  try {
    parsed = xml.parse(common.body);
  } catch {
    return undefined;
  }
  const fault = (parsed.Envelope as { Body?: { Fault?: Record<string, unknown> } } | undefined)?.Body?.Fault;
  if (!fault) return undefined;
  const detail = (fault.detail ?? {}) as { ErrorCode?: string; FieldError?: unknown };
  const fields = detail.FieldError === undefined ? [] : [detail.FieldError].flat();
  return {
    kind: 'soap-fault',
    ...common,
    faultCode: String(fault.faultcode ?? ''),
    faultString: String(fault.faultstring ?? ''),
    code: detail.ErrorCode,
    errors: fields.map((f) => {
      const item = f as { Field?: unknown; Message?: unknown };
      return { field: String(item.Field ?? ''), message: String(item.Message ?? '') };
    }),
  };
}
