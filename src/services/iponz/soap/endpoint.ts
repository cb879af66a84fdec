/**
 * A SOAP 1.1 endpoint (document/literal) on the IP office's routes, ours rather than the `soap`
 * package's server (which buffers whole bodies):
 *
 * - `GET <path>?wsdl` answers the endpoint's WSDL with `soap:address location` (and every schema
 *   import) set to the caller's base URL; `GET <path>?xsd=<file>` answers each XSD it imports.
 * - `POST <path>` (`text/xml`, or `application/xml`): the envelope is read as it streams
 *   (`envelope.ts`), the request validated against the XSDs while it streams (`validator.ts`), base64
 *   elements written to the document store as they arrive; the operation is chosen by `SOAPAction`
 *   (required, and matching the body's element, when the endpoint has several operations; optional
 *   with one). The handler answers the body element's XML, or a stream of pieces.
 * - Faults (HTTP 500 unless said): `soap:Client` for a malformed envelope, an unknown or missing
 *   `SOAPAction`, a request the XSD refuses (the element and the rule named) — and 415 for a body that
 *   is not XML, 413 over the operation's size; `soap:Server` for our own failure (logged). Failures the
 *   register publishes as answers (`TransactionErrorCode` …) are the handler's: HTTP 200.
 * - A JSON body (`application/json`) goes to the endpoint's `json` handler when it has one.
 *
 * Attachments (base64 elements) are stored under staged names; the handler keeps those it records
 * (`input.keep`), and the others are deleted once it has answered or failed.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { drained } from '../../../platform/drained.ts';
import { LARGE_UPLOAD } from '../../../platform/http/body-deadline.ts';
import { logClientWentAway } from '../../../platform/http/client-gone.ts';
import { frameworkError, PLATFORM_ERRORS, SOAP_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError, render, toHttpError } from '../../../platform/http/errors.ts';
import { typed } from '../../../platform/http/operation.ts';
import type { DocumentStore } from '../documents/store.ts';
import { REQUEST_ID_HEADER_NAME } from '../domain/request-id.ts';
import { declareAnyAccept } from '../routes/support.ts';
import { EnvelopeTooLarge, MalformedEnvelope, readEnvelope } from './envelope.ts';
import { SOAP_BODY_TYPES, soapActionOf, soapRequestValidators } from './request-validators.ts';
import type { BinarySink, BinaryValue, Tree } from './validator.ts';
import { XsdViolation } from './validator.ts';
import { ENVELOPE_HEAD, ENVELOPE_TAIL, envelope, SOAP_CONTENT_TYPE } from './writer.ts';
import { qname, XsdModel } from './xsd-model.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Where the WSDL and XSD files are (`src/services/iponz/wsdl/`). */
export const WSDL_FOLDER = path.join(here, '..', 'wsdl');
/** Ours: a request without attachments is at most 1 MiB unless the operation says otherwise. */
export const DEFAULT_MAX_BYTES = 1024 * 1024;

export interface SoapInput {
  /** The request element's content, validated: text, nested objects, arrays where maxOccurs > 1. */
  body: Tree;
  request: FastifyRequest;
  /** The base64 elements' bytes, stored (each `BinaryValue` is also in `body` where it was). */
  attachments: readonly BinaryValue[];
  /** Keeps an attachment once the operation has recorded it (else it is deleted after the answer). */
  keep(attachment: BinaryValue): void;
}

/**
 * The content of `soap:Body`: one element's XML, or its pieces streamed as they come (the envelope is
 * put around either; a stream that fails once started cuts the connection).
 */
export type SoapAnswer =
  | { xml: string }
  | {
      stream: AsyncIterable<string | Buffer>;
      /** Called once the answer has ended or was cut (a client gone before the pieces were read too). */
      close?(): Promise<void>;
    }
  | { write(sink: AnswerSink): Promise<void> };

/**
 * The answer's body written piece by piece to the socket: `write` resolves once the piece is handed to
 * the operating system, so the caller may then reuse its buffer (a download's constant memory). The
 * envelope is put around it; a `write` that throws cuts the connection.
 */
export interface AnswerSink {
  write(piece: string | Buffer): Promise<void>;
}

export interface SoapOperation {
  /** The WSDL operation's name. */
  name: string;
  /** The SOAPAction value that selects it (the binding's `soapAction`). */
  soapAction: string;
  /** The request element's local name, in the endpoint's namespace. */
  request: string;
  /** Largest body accepted, in bytes (default 1 MiB). */
  maxBytes?: number;
  handle(input: SoapInput): Promise<SoapAnswer>;
}

export interface SoapEndpointOptions {
  /** The route path under the service, e.g. `/trademarksearch`. */
  path: string;
  /**
   * The absolute URL of a path from the gateway's root, on its public base URL (`ServiceContext`): the
   * WSDL's addresses never take their host from the request.
   */
  absoluteUrl(path: string): string;
  /** One line for the OpenAPI document. */
  summary: string;
  /** The WSDL file in `wsdl/`; `{{base}}` in it (and in the XSDs) becomes the service's absolute URL. */
  wsdl: string;
  /** The XSD files in `wsdl/` the WSDL imports, served at `<path>?xsd=<file>`. */
  xsds: readonly string[];
  /** The namespace of the request elements. */
  namespace: string;
  operations: readonly SoapOperation[];
  /** Where base64 elements' bytes go; needed when a request XSD has xs:base64Binary. */
  documents?: DocumentStore;
  /** The same endpoint with a JSON body (ours, e.g. the trade mark search as REST JSON). */
  json?: JsonForm<never>;
  /** OpenAPI schema of the JSON body and answer, when `json` is given. */
  jsonSchema?: { body: object; response: { 200: unknown } & Record<number, unknown> };
  /** Other statuses its operations answer with a SOAP Fault (a refusal of the caller: 401, 403), described. */
  faults?: Record<number, string>;
}

/**
 * The JSON form of an endpoint: `validate` is its declared body validator (run before the handler: its
 * result is the handler's input; a RuleError names the field), `handle` answers.
 */
export interface JsonForm<Input> {
  validate(body: unknown): Input;
  handle(request: FastifyRequest, reply: FastifyReply, input: Input): Promise<unknown>;
}

/** A JSON form, its handler's input typed by its validator. */
export const jsonForm = <Input>(form: JsonForm<Input>): JsonForm<never> => form as JsonForm<never>;

const SOAP_TYPES = /^(text\/xml|application\/xml|application\/soap\+xml)\s*(;|$)/i;

export function fault(reply: FastifyReply, error: HttpError): FastifyReply {
  const rendered = render('soap', error);
  return reply.code(error.status).type(SOAP_CONTENT_TYPE).send(rendered.body);
}

const FAULT_SCHEMA = { description: 'A SOAP 1.1 envelope whose body is a soap:Fault' };
/** What a fault looks like, for the reference (the one a request the XSD refuses gets). */
const FAULT_EXAMPLE = render(
  'soap',
  new HttpError(SOAP_ERRORS.invalidRequest, 'TradeMarkSearchCriteria/Title: at most 255 characters'),
).body;

/**
 * The sample envelope of each operation (`wsdl/samples/<endpoint>.<operation>.xml`, one per operation,
 * answered by the sandbox as it is: test/services/iponz/soap-samples.test.ts), for the OpenAPI document.
 */
function samplesOf(options: SoapEndpointOptions): Record<string, { summary: string; value: string }> {
  const samples: Record<string, { summary: string; value: string }> = {};
  for (const operation of options.operations) {
    const file = path.join(WSDL_FOLDER, 'samples', `${options.path.slice(1)}.${operation.name}.xml`);
    if (!existsSync(file)) continue;
    samples[operation.name] = {
      summary: `${operation.name} (send SOAPAction: ${operation.name})`,
      value: readFileSync(file, 'utf8'),
    };
  }
  return samples;
}

export async function soapEndpoint(app: FastifyInstance, options: SoapEndpointOptions): Promise<void> {
  const samples = samplesOf(options);
  // Files by name in wsdl/ (or by absolute path: tests); each XSD served under its file name.
  const read = (file: string) => readFileSync(path.resolve(WSDL_FOLDER, file), 'utf8');
  const wsdl = read(options.wsdl);
  const xsds = new Map(options.xsds.map((file) => [path.basename(file), read(file)]));
  const model = new XsdModel();
  for (const [file, text] of xsds) model.add(text.replaceAll('{{base}}', 'http://localhost'), file);
  model.check();
  const byAction = new Map(options.operations.map((operation) => [operation.soapAction, operation]));
  const byElement = new Map(
    options.operations.map((operation) => {
      const decl = model.elements.get(qname(options.namespace, operation.request));
      if (!decl) throw new Error(`${options.wsdl}: no element ${operation.request} for ${operation.name}`);
      return [operation.request, { operation, decl }];
    }),
  );

  await app.register(async (scope) => {
    // The body is read by the operation as it streams, not by Fastify.
    for (const type of ['text/xml', 'application/xml', 'application/soap+xml'])
      if (scope.hasContentTypeParser(type)) scope.removeContentTypeParser(type);
    scope.addContentTypeParser(
      ['text/xml', 'application/xml', 'application/soap+xml'],
      (_request, _payload, done) => done(null, undefined),
    );
    if (!scope.hasContentTypeParser('*'))
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    // SOAP requests' errors are faults; the WSDL reads, the JSON form and a body of another type speak
    // the service's REST dialect.
    scope.addHook('onRequest', async (request) => {
      if (request.method === 'POST' && SOAP_TYPES.test(request.headers['content-type'] ?? ''))
        request.dialect = 'soap';
    });

    typed(scope).get(
      options.path,
      declareAnyAccept(
        {
          schema: {
            summary: `${options.summary}: the WSDL (?wsdl) and its XSDs (?xsd=<file>)`,
            querystring: Type.Object({
              // Its presence asks for the WSDL (`?wsdl`); a value is allowed, so try-it can send one.
              wsdl: Type.Optional(Type.String({ examples: ['true'] })),
              xsd: Type.Optional(Type.String({ enum: [...xsds.keys()] })),
            }),
            response: {
              200: {
                description: 'The WSDL or the XSD',
                content: { 'text/xml': { schema: { type: 'string' } } },
              },
            },
          },
        },
        // Whatever the Accept (SOAP toolkits send their own): the files are what they are.
        { produces: ['text/xml'] },
      ),
      async (request, reply) => {
        const query = request.query;
        // The service's root: the prefix the endpoint is mounted under (`/sandbox/iponz/v5`).
        const base = options.absoluteUrl(scope.prefix);
        const text =
          query.xsd !== undefined
            ? xsds.get(query.xsd)
            : Object.keys(query).some((k) => k.toLowerCase() === 'wsdl')
              ? wsdl
              : undefined;
        if (text === undefined)
          throw new HttpError(
            PLATFORM_ERRORS.notFound,
            `GET ${options.path}?wsdl answers the WSDL; ?xsd= one of ${[...xsds.keys()].join(', ')}`,
          );
        return reply
          .type(SOAP_CONTENT_TYPE)
          .header('Cache-Control', 'no-cache')
          .send(text.replaceAll('{{base}}', base));
      },
    );

    scope.post(
      options.path,
      declareAnyAccept(
        {
          schema: {
            summary: `${options.summary} (SOAP 1.1; operations: ${options.operations.map((o) => o.name).join(', ')})`,
            description: `A SOAP 1.1 document/literal operation: the body is a SOAP envelope, see the WSDL (GET ${options.path}?wsdl)${options.json ? '; with Content-Type: application/json, the same operation as REST JSON' : ''}.`,
            externalDocs: { description: 'The WSDL', url: `${options.path.slice(1)}?wsdl` },
            // The operation to run; the portal's try-it sends the one of the sample chosen.
            headers: {
              type: 'object',
              properties: {
                SOAPAction: {
                  type: 'string',
                  enum: options.operations.map((o) => o.name),
                  description: `The operation (the WSDL's soapAction)${options.operations.length > 1 ? '; required' : ''}`,
                },
              },
              ...(options.operations.length > 1 ? { required: ['SOAPAction'] } : {}),
            },
            body: {
              content: {
                'text/xml': {
                  // No `type`: Swagger UI then shows the chosen sample as it is (a typed schema without an
                  // XML root name makes it print "XML example cannot be generated" instead).
                  schema: {
                    description:
                      'A SOAP 1.1 envelope (a string of XML) whose body is a request element of the WSDL',
                    'x-examples': samples,
                  },
                },
                'application/xml': { schema: { description: 'The same envelope as text/xml' } },
                ...(options.jsonSchema ? { 'application/json': { schema: options.jsonSchema.body } } : {}),
              },
            },
            response: {
              200: {
                description:
                  'The answer envelope (see the WSDL); failures the register publishes as answers are here too',
                content: {
                  'text/xml': { schema: { description: 'A SOAP 1.1 envelope (see the WSDL)' } },
                  ...(options.jsonSchema
                    ? {
                        'application/json': {
                          schema: options.jsonSchema.response[200] ?? { type: 'object' },
                        },
                      }
                    : {}),
                },
              },
              ...Object.fromEntries(
                Object.entries(options.jsonSchema?.response ?? {})
                  .filter(([status]) => status !== '200')
                  .map(([status, description]) => [
                    status,
                    { description, content: { 'application/problem+json': { schema: { type: 'object' } } } },
                  ]),
              ),
              415: {
                description:
                  'Neither a SOAP 1.1 body (text/xml) nor JSON: problem+json; application/soap+xml (SOAP 1.2): a soap:Client fault',
                content: {
                  'application/problem+json': { schema: { type: 'object' } },
                  'text/xml': { schema: FAULT_SCHEMA },
                },
              },
              500: {
                description: 'A SOAP 1.1 Fault',
                content: { 'text/xml': { schema: FAULT_SCHEMA, example: FAULT_EXAMPLE } },
              },
              ...Object.fromEntries(
                Object.entries(options.faults ?? {}).map(([status, description]) => [
                  status,
                  {
                    description,
                    content: { 'text/xml': { schema: FAULT_SCHEMA } },
                  },
                ]),
              ),
            },
          },
          // Its refusals are answered by the route (a fault, in any app), not left to the app's error handler.
          attachValidation: true,
          // Attachments of many megabytes may take longer than an ordinary body, at the minimum rate.
          ...(options.operations.some((o) => (o.maxBytes ?? DEFAULT_MAX_BYTES) > DEFAULT_MAX_BYTES)
            ? { config: LARGE_UPLOAD as FastifyContextConfig }
            : {}),
        },
        // The answer's type follows the request's: an envelope for an envelope, JSON for the JSON form.
        {
          produces: options.json ? ['text/xml', 'application/json'] : ['text/xml'],
          // Every part declared (request-validators.ts): SOAPAction, the envelope validated against the XSDs
          // as it streams, the JSON form's body.
          validators: soapRequestValidators({
            path: options.path,
            actions: [...byAction.keys()],
            ...(options.json ? { json: options.json.validate } : {}),
          }),
        },
      ),
      async (request, reply) => {
        const type = request.headers['content-type'] ?? '';
        const invalid = request.validationError;
        if (invalid) {
          if (invalid instanceof HttpError && SOAP_BODY_TYPES.test(type)) return fault(reply, invalid);
          throw invalid;
        }
        if (options.json && /^application\/json\s*(;|$)/i.test(type))
          return options.json.handle(request, reply, request.body as never);
        if (/^application\/soap\+xml/i.test(type))
          return fault(
            reply,
            new HttpError(
              SOAP_ERRORS.unsupportedMediaType,
              'application/soap+xml is SOAP 1.2; this endpoint speaks SOAP 1.1 (Content-Type: text/xml)',
            ),
          );
        if (!SOAP_BODY_TYPES.test(type))
          throw new HttpError(
            frameworkError(415, 'FST_ERR_CTP_INVALID_MEDIA_TYPE'),
            `Content-Type ${type || '(none)'}: a SOAP 1.1 request is text/xml${options.json ? '; the JSON form is application/json' : ''}`,
          );
        // The SOAPAction names an operation, or is absent on an endpoint of one (its header validator).
        const action = soapActionOf(request.headers);
        let chosen = action ? byAction.get(action) : undefined;
        const staged: BinaryValue[] = [];
        const writes: Promise<void>[] = [];
        const kept = new Set<BinaryValue>();
        const documents = options.documents;
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
        try {
          const read = await readEnvelope(
            request.raw,
            {
              requestElement(namespace, local) {
                const found = namespace === options.namespace ? byElement.get(local) : undefined;
                if (!found || (chosen && found.operation !== chosen))
                  throw new HttpError(
                    chosen ? SOAP_ERRORS.invalidRequest : SOAP_ERRORS.malformedEnvelope,
                    chosen
                      ? `Element ${local}: the operation ${chosen.name} takes ${chosen.request} in namespace ${options.namespace}`
                      : `Element ${local} (namespace ${namespace || 'none'}) is not a request of ${options.path}; expected ${[...byElement.keys()].join(' or ')} in namespace ${options.namespace}`,
                    [{ field: local, message: 'is not the operation’s request element' }],
                  );
                chosen = found.operation;
                return { decl: found.decl, model, maxBytes: found.operation.maxBytes ?? DEFAULT_MAX_BYTES };
              },
              openBinary,
            },
            chosen?.maxBytes ?? Math.max(...options.operations.map((o) => o.maxBytes ?? DEFAULT_MAX_BYTES)),
          );
          const operation = chosen!;
          const answer = await operation.handle({
            body: read.body,
            request,
            attachments: staged,
            keep: (value) => kept.add(value),
          });
          await cleanup();
          reply.type(SOAP_CONTENT_TYPE);
          if ('xml' in answer) return reply.send(envelope(answer.xml));
          if ('write' in answer) return await writeAnswer(reply, answer.write);
          const pieces = answer.stream;
          const body = Readable.from(
            (async function* () {
              yield ENVELOPE_HEAD;
              yield* pieces;
              yield ENVELOPE_TAIL;
            })(),
            { objectMode: false },
          );
          const close = answer.close;
          if (close) body.once('close', () => void close().catch(() => {}));
          return reply.send(body);
        } catch (error) {
          await cleanup();
          // Answered already: the body did not arrive in time (408, platform/http/body-deadline.ts).
          if (reply.sent) return reply;
          // What is left of the body is not read: the connection closes after the answer.
          if (!request.raw.readableEnded) reply.header('Connection', 'close');
          return fault(reply, faultOf(error, request));
        }
      },
    );
  });
}

/** Writes an answer straight to the socket (the reply hijacked: its headers written here). */
async function writeAnswer(
  reply: FastifyReply,
  body: (sink: AnswerSink) => Promise<void>,
): Promise<FastifyReply> {
  const raw = reply.raw;
  // A hijacked reply skips the onSend hook that names the request (app.ts): named here.
  reply.header(REQUEST_ID_HEADER_NAME, reply.request.id);
  reply.hijack();
  raw.writeHead(200, reply.getHeaders() as Record<string, string>);
  const sink: AnswerSink = {
    // Node never calls a write's callback when the connection closed under it (the bytes go nowhere):
    // the answer's 'close' ends the wait, so a client gone mid-answer frees what the writer holds (an
    // open document) at once, not never.
    write: (piece) =>
      new Promise((resolve, reject) => {
        if (raw.destroyed) return reject(new Error('the connection is closed'));
        const gone = () => reject(new Error('the connection is closed'));
        raw.once('close', gone);
        raw.write(piece, (error) => {
          raw.off('close', gone);
          if (error) reject(error);
          else resolve();
        });
      }),
  };
  try {
    await sink.write(ENVELOPE_HEAD);
    await body(sink);
    await sink.write(ENVELOPE_TAIL);
    raw.end();
  } catch (error) {
    // The client gone mid-answer is no fault of ours; anything else that cut it short is.
    if (raw.destroyed) logClientWentAway(reply.request, error);
    else reply.log.warn({ err: error }, 'SOAP answer cut short');
    raw.destroy();
  }
  return reply;
}

/** The fault an error is answered with; our own failures are logged and leak nothing. */
function faultOf(error: unknown, request: FastifyRequest): HttpError {
  if (error instanceof XsdViolation)
    return new HttpError(SOAP_ERRORS.invalidRequest, error.message, [
      { field: error.element, message: error.rule },
    ]);
  if (error instanceof MalformedEnvelope)
    return new HttpError(SOAP_ERRORS.malformedEnvelope, `Malformed SOAP 1.1 envelope: ${error.message}`);
  if (error instanceof EnvelopeTooLarge)
    return new HttpError(PLATFORM_ERRORS.bodyTooLarge, error.message, [
      { field: 'body', message: `at most ${error.limit} bytes` },
    ]);
  if (error instanceof HttpError) return error;
  const known = toHttpError(error, request);
  if (known.code === PLATFORM_ERRORS.internalError.code)
    request.log.error({ err: error }, 'SOAP operation failed');
  return known;
}
