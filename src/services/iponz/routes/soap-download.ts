/**
 * `POST /download-document` (SOAP; WSDL `GET /download-document?wsdl`): a document by
 * `ObjectIdentifier`, base64 in `ObjectData`, streamed from the document store into the envelope in
 * pieces (multiples of 3 bytes, so the pieces' base64 joins into the whole's), each read only when the
 * socket has taken the one before: a 100 MB document goes out without it or its base64 in memory.
 * Seeded documents, which have no stored bytes, are generated on demand (documents/generated.ts).
 * The same download as REST JSON (ours, `Content-Type: application/json`, `{"ObjectIdentifier": …}`):
 * the same fields, `ObjectData` streamed alike, under the answer's exact `Content-Length`; an unknown
 * document is 404 problem+json, the time limit passed before the answer starts 504 problem+json.
 *
 * Failures (published: HTTP 200 with `TransactionErrorCode`): an identifier without a document is
 * `App Error`; the operation past its time limit (120 s, `RSG_IPONZ_DOWNLOAD_TIMEOUT_MS`) is `Fault
 * Error` — when no byte has been sent yet. Ours: once the answer has started (HTTP 200 and part of
 * `ObjectData` are on the wire) nothing valid can be said any more, so the connection is cut: the client
 * sees an envelope that never closes, never a document cut short that parses as whole. A client that
 * stops reading is not waited for past the limit either.
 */
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { READ_CHUNK } from '../../../platform/documents/folder-store.ts';
import type { DocumentStore } from '../../../platform/documents/store.ts';
import { RuleError } from '../../../platform/errors.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { documentStoreFor } from '../documents/location.ts';
import { deleteOrphanDocuments } from '../documents/orphans.ts';
import { parseDocumentIdentifier } from '../domain/identifiers.ts';
import { IPONZ_ERRORS } from '../errors.ts';
import { openDocument as openStoredDocument } from '../operations/documents.ts';
import { base64Into, base64Pieces } from '../soap/base64.ts';
import { type AnswerSink, jsonForm, soapEndpoint } from '../soap/endpoint.ts';
import { xmlElement } from '../soap/writer.ts';
import { SERVICES_NS } from './soap-search.ts';
import { notFound } from './support.ts';

export const DOWNLOAD_TIMEOUT_SETTING = 'downloadTimeoutMs';
const DATA_MARK = 'OBJECTDATA-STREAMED-HERE';
const ORPHAN_AGE_MS = 60 * 60 * 1000;
const JSON_TAIL = '"}';

const DownloadJsonBody = Type.Object(
  {
    ObjectIdentifier: Type.String({ pattern: '^[0-9a-fA-F]{16}$' }),
    TransactionIdentifier: Type.Optional(Type.String({ maxLength: 255 })),
  },
  { additionalProperties: false },
);
const DownloadJsonAnswer = Type.Object({
  TransactionIdentifier: Type.Optional(Type.String()),
  TransactionCode: Type.Literal('Get Object'),
  ObjectIdentifier: Type.String(),
  ObjectFormat: Type.String({ enum: ['pdf', 'jpeg', 'gif'] }),
  ObjectName: Type.String(),
  ObjectSize: Type.Integer(),
  ObjectData: Type.String({ description: 'base64' }),
});

/** The download ran past its time limit after its answer had started. */
export class DownloadTimedOut extends Error {
  override name = 'DownloadTimedOut';
}

/**
 * The answer in pieces: `head`, the base64 pieces, `tail`. Each piece is pulled from `source` only when
 * the consumer asks for the next (no read-ahead here), and the deadline is checked before each: past
 * it, the stream fails (the connection is cut).
 */
export async function* downloadPieces(
  head: string,
  source: AsyncIterable<Buffer | Uint8Array>,
  tail: string,
  deadline: { passed(): boolean },
): AsyncGenerator<string | Buffer> {
  yield head;
  for await (const piece of base64Pieces(source)) {
    if (deadline.passed()) throw new DownloadTimedOut('the download ran past its time limit');
    yield piece;
  }
  yield tail;
}

/**
 * A stored document's base64 written to the socket with two buffers reused for every piece: the next
 * piece is read only once the last is handed to the operating system (`sink.write` resolved), so memory
 * is two buffers whatever the size. Past the deadline it throws (the connection is cut).
 */
export async function writeBase64(
  readInto: (target: Buffer, position: number) => Promise<number>,
  size: number,
  sink: AnswerSink,
  deadline: { passed(): boolean },
): Promise<void> {
  const input = Buffer.allocUnsafe(READ_CHUNK);
  const output = Buffer.allocUnsafe((READ_CHUNK / 3) * 4);
  let position = 0;
  let filled = 0;
  while (position < size) {
    const read = await readInto(input.subarray(filled), position);
    if (read === 0) break;
    position += read;
    const total = filled + read;
    const whole = position >= size ? total : total - (total % 3);
    if (deadline.passed()) throw new DownloadTimedOut('the download ran past its time limit');
    const length = base64Into(input.subarray(0, whole), output);
    await sink.write(output.subarray(0, length));
    input.copyWithin(0, whole, total);
    filled = total - whole;
  }
  if (filled) {
    const length = base64Into(input.subarray(0, filled), output);
    await sink.write(output.subarray(0, length));
  }
}

/**
 * The time limit of one download: `deadline` for the checks before the answer starts and between
 * pieces; once the answer streams, a timer cuts the connection at the limit (a client that stopped
 * reading included).
 */
function guard(request: FastifyRequest, timeoutMs: number) {
  const started = Date.now();
  return {
    deadline: { passed: () => Date.now() - started >= timeoutMs },
    async *around(pieces: AsyncIterable<string | Buffer>): AsyncGenerator<string | Buffer> {
      const socket = request.raw.socket;
      const timer = setTimeout(() => socket?.destroy(), Math.max(0, started + timeoutMs - Date.now()));
      timer.unref();
      try {
        yield* pieces;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export async function soapDownloadRoutes(
  app: FastifyInstance,
  context: ServiceContext,
  store: DocumentStore = documentStoreFor(context.database),
): Promise<void> {
  const pool = context.database.pool;
  const timeoutMs = context.settings[DOWNLOAD_TIMEOUT_SETTING] ?? 120_000;
  const folder = store as Partial<ReturnType<typeof documentStoreFor>>;
  if (folder.list && folder.cleanTemporaries)
    void deleteOrphanDocuments(folder as ReturnType<typeof documentStoreFor>, pool, ORPHAN_AGE_MS).catch(
      (error) => app.log.warn({ err: error }, 'orphan documents not cleaned'),
    );

  const openDocument = (id: string) =>
    openStoredDocument(context, { documentIdentifier: id }, { documents: store });

  await soapEndpoint(app, {
    path: '/download-document',
    absoluteUrl: context.absoluteUrl,
    summary: 'Document download',
    wsdl: 'download-document.wsdl',
    xsds: ['document-download.xsd'],
    namespace: SERVICES_NS,
    jsonSchema: {
      body: DownloadJsonBody,
      response: {
        200: DownloadJsonAnswer,
        400: 'ObjectIdentifier is not 16 hexadecimal digits (problem+json)',
        404: 'No document has this identifier (problem+json)',
        504: 'The time limit passed before the answer started (problem+json); past it once started, the connection is cut',
      },
    },
    json: jsonForm({
      validate: downloadJsonCheck,
      async handle(request: FastifyRequest, reply: FastifyReply, { id, transaction }: DownloadJsonInput) {
        const timing = guard(request, timeoutMs);
        const opened = await openDocument(id);
        if (!opened) throw notFound(`document ${id}`);
        if (timing.deadline.passed()) {
          await opened.close();
          throw new HttpError(
            IPONZ_ERRORS.downloadTimedOut,
            `The download ran past its time limit (${timeoutMs / 1000} s) before its answer started`,
          );
        }
        const head = `${JSON.stringify({
          ...(transaction === undefined ? {} : { TransactionIdentifier: transaction }),
          TransactionCode: 'Get Object',
          ObjectIdentifier: id,
          ObjectFormat: opened.record.objectFormat,
          ObjectName: opened.record.documentName,
          ObjectSize: opened.size,
        }).slice(0, -1)},"ObjectData":"`;
        const answer = Readable.from(
          timing.around(downloadPieces(head, opened.source(), JSON_TAIL, timing.deadline)),
        );
        // A client gone before the bytes were read: the pieces' generator never reaches the document's
        // stream, so the answer's end closes it (else the file stays open until a collection).
        answer.once('close', () => void opened.close().catch(() => {}));
        // The exact length, so that a body cut at the time limit is short of it for every client (an
        // HTTP/1.0 one too, which has no chunks to miss).
        const length = Buffer.byteLength(head) + Math.ceil(opened.size / 3) * 4 + JSON_TAIL.length;
        return reply.type('application/json; charset=utf-8').header('content-length', length).send(answer);
      },
    }),
    operations: [
      {
        name: 'GetObject',
        soapAction: 'GetObject',
        request: 'GetObject',
        async handle({ body, request }) {
          const timing = guard(request, timeoutMs);
          const id = String(body.ObjectIdentifier).toLowerCase();
          const common = {
            TransactionIdentifier: body.TransactionIdentifier as string | undefined,
            TransactionCode: 'Get Object',
            ObjectIdentifier: id,
          };
          const failure = (code: 'App Error' | 'Fault Error', message: string) => ({
            xml: xmlElement('GetObjectResponse', SERVICES_NS, {
              ...common,
              TransactionErrorCode: code,
              TransactionErrorMessage: message,
            }),
          });
          const opened = await openDocument(id);
          if (!opened) return failure('App Error', `ObjectIdentifier: no document ${id}`);
          if (timing.deadline.passed()) {
            await opened.close();
            return failure('Fault Error', `The download ran past its time limit (${timeoutMs / 1000} s)`);
          }
          const [head, tail] = xmlElement('GetObjectResponse', SERVICES_NS, {
            ...common,
            ObjectFormat: opened.record.objectFormat,
            ObjectName: opened.record.documentName,
            ObjectSize: opened.size,
            ObjectData: DATA_MARK,
          }).split(DATA_MARK) as [string, string];
          const read = opened.readInto;
          if (read)
            return {
              write: async (sink: AnswerSink) => {
                try {
                  await sink.write(head);
                  await writeBase64(read, opened.size, sink, timing.deadline);
                  await sink.write(tail);
                } finally {
                  await opened.close();
                }
              },
            };
          return {
            stream: timing.around(downloadPieces(head, opened.source(), tail, timing.deadline)),
            close: opened.close,
          };
        },
      },
    ],
  });
}

interface DownloadJsonInput {
  id: string;
  transaction: string | undefined;
}

/** The JSON form's declared body validator: DownloadJsonBody's shape, a RuleError naming the field. */
function downloadJsonCheck(input: unknown): DownloadJsonInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new RuleError('body', 'must be a JSON object with ObjectIdentifier');
  const body = input as Record<string, unknown>;
  for (const key of Object.keys(body))
    if (key !== 'ObjectIdentifier' && key !== 'TransactionIdentifier')
      throw new RuleError(key, 'is not a known field');
  if (typeof body.ObjectIdentifier !== 'string')
    throw new RuleError('ObjectIdentifier', 'is required: 16 hexadecimal digits');
  const transaction = body.TransactionIdentifier;
  if (transaction !== undefined && (typeof transaction !== 'string' || [...transaction].length > 255))
    throw new RuleError('TransactionIdentifier', 'must be a string of at most 255 characters');
  return { id: parseDocumentIdentifier(body.ObjectIdentifier), transaction };
}
