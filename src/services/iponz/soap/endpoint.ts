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
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DocumentStore } from '../../../platform/documents/store.ts';
import { LARGE_UPLOAD } from '../../../platform/http/body-deadline.ts';
import { frameworkError, PLATFORM_ERRORS, SOAP_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { typed } from '../../../platform/http/operation.ts';
import { copyingStart, wantedStreamedBodyStart } from '../../../platform/http/streamed-body.ts';
import { declareAnyAccept } from '../routes/support.ts';
import { fault, faultOf, sendAnswer } from './answer.ts';
import { postSchema, samplesOf, WSDL_FOLDER, wsdlSchema } from './endpoint-docs.ts';
import { readEnvelope } from './envelope.ts';
import { SOAP_BODY_TYPES, soapActionOf, soapRequestValidators } from './request-validators.ts';
import { stageAttachments } from './staging.ts';
import type { BinaryValue, Tree } from './validator.ts';
import { SOAP_CONTENT_TYPE } from './writer.ts';
import { type ElementDecl, qname, XsdModel } from './xsd-model.ts';

export { fault } from './answer.ts';
export { WSDL_FOLDER } from './endpoint-docs.ts';
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

  const loaded: LoadedEndpoint = { options, model, byElement };

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
          schema: wsdlSchema(options.summary, [...xsds.keys()]),
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
          schema: postSchema(options, samples),
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
        return answerEnvelope(loaded, request, reply, action ? byAction.get(action) : undefined);
      },
    );
  });
}

/** An endpoint as loaded at start: its options, its XSDs' model, its operations by request element. */
interface LoadedEndpoint {
  options: SoapEndpointOptions;
  model: XsdModel;
  byElement: Map<string, { operation: SoapOperation; decl: ElementDecl }>;
}

/** Reads the envelope as it streams, runs its operation and answers; a fault for what fails. */
async function answerEnvelope(
  { options, model, byElement }: LoadedEndpoint,
  request: FastifyRequest,
  reply: FastifyReply,
  byHeader: SoapOperation | undefined,
): Promise<FastifyReply> {
  const largest = Math.max(...options.operations.map((o) => o.maxBytes ?? DEFAULT_MAX_BYTES));
  let chosen = byHeader;
  const attachments = stageAttachments(options.documents);
  // What wants the envelope's start afterwards (the request inspector) reads it from `request.body`,
  // which Fastify never sets here: the operation reads the envelope as it streams.
  const wanted = wantedStreamedBodyStart(request);
  const source = wanted > 0 ? copyingStart(request.raw, request, wanted) : request.raw;
  try {
    const read = await readEnvelope(
      source,
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
        openBinary: attachments.openBinary,
      },
      chosen?.maxBytes ?? largest,
    );
    const answer = await chosen!.handle({
      body: read.body,
      request,
      attachments: attachments.staged,
      keep: attachments.keep,
    });
    await attachments.cleanup();
    return await sendAnswer(reply, answer);
  } catch (error) {
    await attachments.cleanup();
    // Answered already: the body did not arrive in time (408, platform/http/body-deadline.ts).
    if (reply.sent) return reply;
    // What is left of the body is not read: the connection closes after the answer.
    if (!request.raw.readableEnded) reply.header('Connection', 'close');
    return fault(reply, faultOf(error, request));
  }
}
