/**
 * A SOAP operation's answer sent: the envelope put around the body element's XML, around its pieces
 * streamed, or written straight to the socket; and the faults (`soap:Client` for the request's faults,
 * `soap:Server` for our own, logged).
 */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { logClientWentAway } from '../../../platform/http/client-gone.ts';
import { PLATFORM_ERRORS, SOAP_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError, render, toHttpError } from '../../../platform/http/errors.ts';
import { REQUEST_ID_HEADER_NAME } from '../domain/request-id.ts';
import type { AnswerSink, SoapAnswer } from './endpoint.ts';
import { EnvelopeTooLarge, MalformedEnvelope } from './envelope.ts';
import { XsdViolation } from './validator.ts';
import { ENVELOPE_HEAD, ENVELOPE_TAIL, envelope, SOAP_CONTENT_TYPE } from './writer.ts';

export function fault(reply: FastifyReply, error: HttpError): FastifyReply {
  const rendered = render('soap', error);
  return reply.code(error.status).type(SOAP_CONTENT_TYPE).send(rendered.body);
}

/** Sends an operation's answer in its envelope. */
export async function sendAnswer(reply: FastifyReply, answer: SoapAnswer): Promise<FastifyReply> {
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
export function faultOf(error: unknown, request: FastifyRequest): HttpError {
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
