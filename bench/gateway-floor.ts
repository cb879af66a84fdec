import Fastify, { LogController } from 'fastify';
import pino from 'pino';
import { REQUEST_ID_HEADER } from '../src/app.ts';
import { makeChildrenLazy } from '../src/platform/http/lazy-logger.ts';
import { loggerOptions } from '../src/platform/http/log-redaction.ts';
import { newRequestId } from '../src/platform/http/request-id.ts';
import { FIXED_ANSWER } from './fixed-answer.ts';

/**
 * The gateway's floor on Fastify, for `gateway-steps.ts floor` and `bench:gateway`: Fastify configured
 * as `src/app.ts` configures it for a guarded service route — the logger on (level warn, lines to
 * /dev/null, the per-request child made on first use), a generated request id (`newRequestId`), the
 * request id header set in one `onRequest` hook (where the guarded routes set it, in the guard's hook:
 * answer-marks.ts) — and the fixed JSON from one route, with none of the gateway's work (no key check,
 * limits, usage, metrics, CORS, input check). What the gateway costs beyond this is its own; what this
 * costs beyond Fastify alone is the logger, the request id and one hook phase, which every answer of
 * ours carries.
 */
const app = Fastify({
  logger: loggerOptions('warn', pino.destination('/dev/null')),
  genReqId: newRequestId,
  logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
});
makeChildrenLazy(app.log);
app.addHook('onRequest', (request, reply, done) => {
  reply.header(REQUEST_ID_HEADER, request.id);
  done();
});
app.get('/sandbox/nzbn/v5/fixed', async (_request, reply) =>
  reply.type('application/json; charset=utf-8').send(FIXED_ANSWER),
);
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
