/**
 * The IP office's SOAP operations (SOAP 1.1, document/literal): one typed method per WSDL operation,
 * its request and answer types generated from the register's XSDs. Requests are built and answers read
 * with fast-xml-parser, in the sequence order and with the types the XSDs give (`soapShapes`), never by
 * joining strings. A SOAP fault (HTTP 500, or the refusal's status: 401 without a user, 403 for one not
 * registered with the office) is a `RegisterError` of kind `soap-fault`; an answer that reports a failure
 * with HTTP 200 (`TransactionErrorCode` with its `TransactionErrorField`, or the search's
 * `appErrorEncountered` / `faultErrorEncountered`) is one of kind `transaction-error`. A filing is named
 * by its `TransactionIdentifier` (the office's idempotency): the call's request id stands in for one not
 * given.
 */
import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { RegisterError } from '../core/errors.ts';
import { REQUEST_ID_HEADER, type Transport } from '../core/transport.ts';
import { type SoapOperationTypes, soapOperations, soapShapes } from '../generated/iponz-soap.ts';

export type { SoapOperationTypes } from '../generated/iponz-soap.ts';

export interface SoapCallOptions {
  /**
   * The request id (sent as `api-business-govt-nz-Request-Id`). The office names a filing by its
   * `TransactionIdentifier`: a filing given a request id and no `TransactionIdentifier` is sent with the
   * request id as its `TransactionIdentifier` (at most 100 characters), so a filing repeated under it
   * answers the first answer (and may be retried).
   */
  requestId?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export type IponzSoap = {
  [Name in keyof SoapOperationTypes]: (
    request: SoapOperationTypes[Name]['request'],
    options?: SoapCallOptions,
  ) => Promise<SoapOperationTypes[Name]['answer']>;
};

const ENVELOPE = 'http://schemas.xmlsoap.org/soap/envelope/';
const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  suppressEmptyNode: false,
});
const parser = new XMLParser({ removeNSPrefix: true, parseTagValue: false, ignoreAttributes: true });

type Value = unknown;

/** The value's members in the order the XSD's sequence gives, leaves as text; unknown members refused. */
function ordered(value: Value, shape: string, where: string): Value {
  const children = soapShapes[shape];
  if (!children) return typeof value === 'boolean' || typeof value === 'number' ? String(value) : value;
  if (typeof value !== 'object' || value === null) throw new TypeError(`${where}: must be an object`);
  const known = new Set(children.map(([name]) => name));
  const unknown = Object.keys(value).filter((name) => !known.has(name));
  if (unknown.length) throw new TypeError(`${where}: ${unknown.join(', ')} is not in the schema`);
  const out: Record<string, Value> = {};
  for (const [name, type, many] of children) {
    const member = (value as Record<string, Value>)[name];
    if (member === undefined || member === null) continue;
    out[name] = many
      ? (Array.isArray(member) ? member : [member]).map((item, i) =>
          ordered(item, type, `${where}.${name}[${i}]`),
        )
      : ordered(member, type, `${where}.${name}`);
  }
  return out;
}

/** The parsed answer with its repeating elements as arrays and its numbers and booleans typed. */
function typed(value: Value, shape: string): Value {
  if (shape === 'number') return value === '' ? value : Number(value);
  if (shape === 'boolean') return value === 'true' || value === '1';
  const children = soapShapes[shape];
  if (!children) return value;
  const node = (typeof value === 'object' && value !== null ? value : {}) as Record<string, Value>;
  const out: Record<string, Value> = {};
  for (const [name, type, many] of children) {
    const member = node[name];
    if (member === undefined) {
      if (many) out[name] = [];
      continue;
    }
    out[name] = many ? [member].flat().map((item) => typed(item, type)) : typed(member, type);
  }
  return out;
}

interface Failure {
  code: string;
  message: string;
  field: string | undefined;
}

/** The operations whose `TransactionIdentifier` names the request: a repeat answers the first answer. */
const NAMED_BY_TRANSACTION: ReadonlySet<string> = new Set([
  'FilePatentApplication',
  'FileTradeMarkApplication',
]);
const TRANSACTION_IDENTIFIER_MAX = 100;

/** The request, named by the request id as its `TransactionIdentifier` when a filing names none. */
function namedRequest(name: string, request: Value, requestId: string | undefined): Value {
  if (!NAMED_BY_TRANSACTION.has(name) || requestId === undefined) return request;
  if (typeof request !== 'object' || request === null) return request;
  const given = (request as { TransactionIdentifier?: unknown }).TransactionIdentifier;
  if (given !== undefined && given !== null && String(given).trim() !== '') return request;
  if (requestId.length > TRANSACTION_IDENTIFIER_MAX) {
    throw new TypeError(
      `${name}: requestId names the filing as its TransactionIdentifier: at most ${TRANSACTION_IDENTIFIER_MAX} characters`,
    );
  }
  return { ...request, TransactionIdentifier: requestId };
}

function failureOf(answer: Record<string, Value>): Failure | undefined {
  if (typeof answer.TransactionErrorCode === 'string') {
    return {
      code: answer.TransactionErrorCode,
      message: String(answer.TransactionErrorMessage ?? answer.TransactionErrorCode),
      field: typeof answer.TransactionErrorField === 'string' ? answer.TransactionErrorField : undefined,
    };
  }
  if (answer.appErrorEncountered === true || answer.faultErrorEncountered === true) {
    return {
      code: answer.appErrorEncountered === true ? 'App Error' : 'Fault Error',
      message: String(answer.ErrorMessage ?? 'the search failed'),
      field: undefined,
    };
  }
  return undefined;
}

export function iponzSoap(transport: Transport): IponzSoap {
  const call = async (name: keyof typeof soapOperations, request: Value, options: SoapCallOptions = {}) => {
    const operation = soapOperations[name];
    const element = operation.request.split('#element:')[1]!;
    const body = builder.build({
      'soap:Envelope': {
        '@xmlns:soap': ENVELOPE,
        'soap:Body': {
          [element]: {
            '@xmlns': operation.namespace,
            ...(ordered(
              namedRequest(name, request, options.requestId),
              operation.request,
              element,
            ) as object),
          },
        },
      },
    });
    const answer = await transport.send<string>({
      method: 'POST',
      path: operation.path,
      headers: {
        'Content-Type': 'text/xml; charset=utf-8',
        Accept: 'text/xml',
        SOAPAction: `"${operation.soapAction}"`,
      },
      body: `<?xml version="1.0" encoding="UTF-8"?>${body}`,
      requestId: options.requestId,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
    const answerElement = operation.answer.split('#element:')[1]!;
    const parsed = parser.parse(answer.body) as { Envelope?: { Body?: Record<string, Value> } };
    const raw = parsed.Envelope?.Body?.[answerElement];
    if (raw === undefined) throw new TypeError(`${name}: the answer has no ${answerElement}`);
    const result = typed(raw, operation.answer) as Record<string, Value>;
    const failure = failureOf(result);
    if (failure) {
      throw new RegisterError({
        kind: 'transaction-error',
        status: answer.status,
        requestId: answer.headers.get(REQUEST_ID_HEADER) ?? undefined,
        body: answer.body,
        transactionErrorCode: failure.code,
        message: failure.message,
        field: failure.field,
      });
    }
    return result;
  };
  return Object.fromEntries(
    Object.keys(soapOperations).map((name) => [
      name,
      (request: Value, options?: SoapCallOptions) =>
        call(name as keyof typeof soapOperations, request, options),
    ]),
  ) as unknown as IponzSoap;
}
