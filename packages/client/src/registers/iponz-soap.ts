/**
 * The IP office's SOAP operations (SOAP 1.1, document/literal): one typed method per WSDL operation,
 * its request and answer types generated from the register's XSDs. Requests are built and answers read
 * with fast-xml-parser, in the sequence order and with the types the XSDs give (`soapShapes`), never by
 * joining strings. A SOAP fault (HTTP 500) is a `RegisterError` of kind `soap-fault`; an answer that
 * reports a failure with HTTP 200 (`TransactionErrorCode`, or the search's `appErrorEncountered` /
 * `faultErrorEncountered`) is one of kind `transaction-error`.
 */
import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { RegisterError } from '../core/errors.ts';
import { REQUEST_ID_HEADER, type Transport } from '../core/transport.ts';
import { type SoapOperationTypes, soapOperations, soapShapes } from '../generated/iponz-soap.ts';

export type { SoapOperationTypes } from '../generated/iponz-soap.ts';

export interface SoapCallOptions {
  /** The request id: a filing repeated under it answers the first outcome (and may be retried). */
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

function failureOf(answer: Record<string, Value>): { code: string; message: string } | undefined {
  if (typeof answer.TransactionErrorCode === 'string') {
    return {
      code: answer.TransactionErrorCode,
      message: String(answer.TransactionErrorMessage ?? answer.TransactionErrorCode),
    };
  }
  if (answer.appErrorEncountered === true || answer.faultErrorEncountered === true) {
    return {
      code: answer.appErrorEncountered === true ? 'App Error' : 'Fault Error',
      message: String(answer.ErrorMessage ?? 'the search failed'),
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
            ...(ordered(request, operation.request, element) as object),
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
