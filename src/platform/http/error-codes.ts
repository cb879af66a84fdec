/**
 * The catalogue of error codes, per dialect. Every `HttpError` is built from one of these entries, so
 * a code a client can see is written once, with its HTTP status and what it means; each service lists
 * the codes its clients can meet in its README and in its OpenAPI document (`x-error-codes`).
 *
 * Where a code shows on the wire:
 * - `apim` (API Management's `{statusCode, message}`): not at all; the status and the published message
 *   are the contract (reference/gateway.md). The code names the case in logs and tests.
 * - `nzbn` (`{status, errorCode, errorDescription, list}`): `errorCode`.
 * - `problem` (RFC 9457): the fragment of `type`, `about:blank#<code>`.
 * - `soap` (SOAP 1.1 fault): `<detail><ErrorCode>`, beside `faultcode` `soap:Client` or `soap:Server`.
 *
 * No Fastify import here: domain code may name a code (see `../errors.ts`).
 */

/** The error dialect of an API: how its error bodies look. */
export type Dialect = 'apim' | 'nzbn' | 'soap' | 'problem';

/** SOAP 1.1 fault codes: the client's request was wrong, or the server failed. */
export type SoapFaultCode = 'soap:Client' | 'soap:Server';

export interface ErrorCode {
  /** The machine-readable code. */
  readonly code: string;
  readonly status: number;
  /** What it means, for the README and the OpenAPI document. */
  readonly meaning: string;
  /** The SOAP fault code, where it is not the default (`soap:Server` from 500, else `soap:Client`). */
  readonly fault?: SoapFaultCode;
  /** Answered in this dialect whatever the service's own (a gateway refusal a service lists). */
  readonly dialect?: Dialect;
  /**
   * A refusal before a register starts the request (the caller's payment or authority): never kept as
   * the outcome of a request id (`http/idempotency.ts`), so the same id runs once the cause is put right.
   */
  readonly beforeStart?: true;
}

/**
 * A catalogue entry. Each module keeps its own codes beside it (`services/<id>/errors.ts`,
 * `billing/errors.ts`, `identity/errors.ts`, `gateway/errors.ts`); this file keeps the mechanism and
 * the codes every API shares.
 */
export const errorCode = (code: string, status: number, meaning: string, fault?: SoapFaultCode): ErrorCode =>
  fault ? { code, status, meaning, fault } : { code, status, meaning };
const entry = errorCode;

/**
 * Codes any API answers in its own dialect (`nzbn`, `problem`, `soap`): bad input, content negotiation,
 * conditional requests, dependencies away, a register not built yet.
 */
export const PLATFORM_ERRORS = {
  invalidParameter: entry(
    'invalid-parameter',
    400,
    'A parameter or field breaks a rule; the body names the field and the rule',
  ),
  notFound: entry('not-found', 404, 'The addressed item does not exist'),
  notAcceptable: entry(
    'not-acceptable',
    406,
    'None of the media types in Accept is served; the message names those that are',
  ),
  bodyTimeout: entry(
    'body-timeout',
    408,
    'The body did not arrive within the time allowed (uploads: at the minimum rate); the connection is closed',
  ),
  preconditionFailed: entry(
    'precondition-failed',
    412,
    'If-Match or If-Unmodified-Since does not hold: the item has changed',
  ),
  preconditionRequired: entry(
    'precondition-required',
    428,
    'The operation needs a precondition (the header the body names) that the request did not send',
  ),
  bodyTooLarge: entry(
    'body-too-large',
    413,
    'The body is over the operation’s limit; the field `body` names the limit',
  ),
  uriTooLong: entry('uri-too-long', 414, 'A path segment is longer than any parameter the API takes'),
  internalError: entry('internal-error', 500, 'An unexpected fault; it is logged and the body leaks nothing'),
  notImplemented: entry('not-implemented', 501, 'The register is not built yet in this gateway'),
  serviceUnavailable: entry(
    'service-unavailable',
    503,
    'The database is away for a moment; `Retry-After` says when to try again',
  ),
  scheduledMaintenance: entry(
    'scheduled-maintenance',
    503,
    'The sandbox’s simulated maintenance window (Wednesday 21:00–23:00 NZ time); `Retry-After` runs to its end',
  ),
} as const satisfies Record<string, ErrorCode>;

/**
 * The gateway's own refusals, before a request reaches a service, in API Management's body. The
 * messages of the key, rate-limit and quota refusals are published and kept word for word.
 */
export const APIM_ERRORS = {
  missingKey: entry(
    'missing-key',
    401,
    'No subscription key (header `Ocp-Apim-Subscription-Key` or query `subscription-key`)',
  ),
  invalidKey: entry('invalid-key', 401, 'The key is unknown, revoked, or for another environment or service'),
  invalidToken: entry(
    'invalid-token',
    401,
    'The bearer token is malformed, expired, or not signed by this gateway',
  ),
  threeLeggedTokenRequired: entry(
    'three-legged-token-required',
    401,
    'The operation acts for an end user: it needs a token from the authorization-code grant',
  ),
  insufficientScope: entry('insufficient-scope', 403, 'The token lacks the scope the operation needs'),
  organisationRefused: entry(
    'organisation-refused',
    403,
    '`x-organisation` names an organisation the caller does not act for',
  ),
  quotaExceeded: entry(
    'quota-exceeded',
    403,
    'The product’s quota for the period is used; `Retry-After` says when it is replenished',
  ),
  unknownOperation: entry('not-found', 404, 'No operation of the API has this method and path'),
  rateLimited: entry(
    'rate-limited',
    429,
    'The product’s rate limit is exceeded; `Retry-After` says when to try again',
  ),
} as const satisfies Record<string, ErrorCode>;

/**
 * The gateway's timeout, in API Management's body, listed only by a service that has a platform timeout
 * (the secured interests register: 180 s, published). `dialect` makes it `apim` in that service's list.
 */
export const GATEWAY_TIMEOUT: ErrorCode = {
  ...entry(
    'gateway-timeout',
    504,
    'The operation ran past the platform’s timeout; the register may still complete it — look the transaction up by request id before resending',
  ),
  dialect: 'apim',
};

/**
 * problem+json outside the registers: the operator's admin routes, the portal, the sign-in pages. (The
 * registers that speak problem+json use `PLATFORM_ERRORS`.)
 */
export const PROBLEM_ERRORS = {
  missingKey: entry('missing-key', 401, 'The admin routes need the operator’s key'),
  invalidKey: entry('invalid-key', 401, 'The key is not an active key'),
  notOperator: entry('not-operator', 403, 'Only an operator may use the admin routes'),
  operatorsOnly: entry('operators-only', 403, 'A portal page for operators only'),
  csrf: entry('csrf', 403, 'The form has expired or did not come from this site'),
  conflict: entry('conflict', 409, 'The request does not fit the item’s present state'),
  clockNotVirtual: entry('clock-not-virtual', 409, 'Only the sandbox’s virtual clock can be moved'),
  interactionState: entry('interaction-state', 400, 'A sign-in step out of order'),
  interactionExpired: entry('interaction-expired', 400, 'The sign-in has expired or was already used'),
} as const satisfies Record<string, ErrorCode>;

/**
 * SOAP operations (the intellectual property office): a fault for a request the service cannot read.
 * SOAP 1.1 answers a fault with HTTP 500, whoever is at fault; `faultcode` says who.
 */
export const SOAP_ERRORS = {
  malformedEnvelope: entry(
    'malformed-envelope',
    500,
    'The body is not a SOAP 1.1 envelope the operation reads',
    'soap:Client',
  ),
  unknownSoapAction: entry(
    'unknown-soap-action',
    500,
    'The `SOAPAction` header names no operation of this endpoint',
    'soap:Client',
  ),
  invalidRequest: entry(
    'invalid-request',
    500,
    'The request element breaks the operation’s XSD; `faultstring` names the element and the rule',
    'soap:Client',
  ),
  unsupportedMediaType: entry(
    'unsupported-media-type',
    415,
    'A SOAP 1.1 request is sent as `text/xml` (or `application/xml`)',
    'soap:Client',
  ),
} as const satisfies Record<string, ErrorCode>;

/**
 * The failures a SOAP operation of the IP office answers with HTTP 200 and the published error fields in
 * its body (`TransactionErrorCode`, or the trade mark search's flags), not as a fault.
 */
export const SOAP_BODY_ERRORS = {
  appError: entry(
    'App Error',
    200,
    '`TransactionErrorCode`: the request was wrong (an unknown document, a broken rule); `TransactionErrorMessage` says which',
  ),
  faultError: entry(
    'Fault Error',
    200,
    '`TransactionErrorCode`: the system failed (the download ran past its time limit)',
  ),
  appErrorEncountered: entry(
    'appErrorEncountered',
    200,
    'The trade mark search’s flag: the criteria were wrong (`ErrorMessage` says which)',
  ),
  faultErrorEncountered: entry(
    'faultErrorEncountered',
    200,
    'The trade mark search’s flag: the system failed',
  ),
} as const satisfies Record<string, ErrorCode>;

/** The SOAP fault code of an error: its own, else `soap:Server` for 5xx and `soap:Client` otherwise. */
export const soapFaultCode = (error: Pick<ErrorCode, 'status' | 'fault'>): SoapFaultCode =>
  error.fault ?? (error.status >= 500 ? 'soap:Server' : 'soap:Client');

/**
 * Fastify's own client errors (malformed JSON, an unsupported media type …) keep Fastify's code,
 * lower-cased (`fst_err_ctp_invalid_media_type`), with its status: one family, not listed one by one.
 */
export const FRAMEWORK_ERROR_FAMILY = entry(
  'fst_err_…',
  400,
  'Fastify’s own refusal of a request it cannot parse (status 4xx), its code lower-cased',
);

export const frameworkError = (status: number, code: string | undefined): ErrorCode =>
  entry(code?.toLowerCase() ?? 'bad-request', status, FRAMEWORK_ERROR_FAMILY.meaning);

/** One line of a service's error catalogue: the code and the dialect it is answered in. */
export interface ListedErrorCode extends ErrorCode {
  readonly dialect: Dialect;
}

/**
 * The codes a client of one service can meet: the gateway's refusals (API Management's body), then the
 * platform's and the service's own in the service's dialect. What a README lists and `x-error-codes`
 * holds.
 */
export function serviceErrorCodes(
  dialect: Dialect,
  own: readonly ErrorCode[] = [],
  options: { built?: boolean } = {},
): ListedErrorCode[] {
  // A built register never answers 501.
  const built = options.built ?? true;
  const platform = Object.values(PLATFORM_ERRORS).filter(
    (code) => !built || code !== PLATFORM_ERRORS.notImplemented,
  );
  const listed = (codes: readonly ErrorCode[], as: Dialect) =>
    codes.map((code) => ({ ...code, dialect: as, ...(as === 'soap' ? { fault: soapFaultCode(code) } : {}) }));
  const gateway = own.filter((code) => code.dialect === 'apim');
  // A service that speaks a second dialect on some operations (the IP office's SOAP ones) lists those
  // codes last, in that dialect.
  const other = (code: ErrorCode) =>
    code.dialect !== undefined && code.dialect !== 'apim' && code.dialect !== dialect;
  const second = own.filter(other);
  return [
    ...listed([...Object.values(APIM_ERRORS), ...gateway], 'apim'),
    ...listed([...platform, ...own.filter((code) => code.dialect !== 'apim' && !other(code))], dialect),
    ...listed([FRAMEWORK_ERROR_FAMILY], dialect),
    ...second.flatMap((code) => listed([code], code.dialect as Dialect)),
  ];
}
