import { randomUUID } from 'node:crypto';
import Fastify, { LogController } from 'fastify';
import pino from 'pino';
import { REQUEST_ID_HEADER } from '../src/app.ts';
import { requestLoggerFactory } from '../src/platform/http/lazy-logger.ts';
import { loggerOptions } from '../src/platform/http/log-redaction.ts';
import { FIXED_ANSWER } from './fixed-answer.ts';

/**
 * The gateway's floor on Fastify, for `gateway-steps.ts floor`: Fastify configured as `src/app.ts`
 * configures it for every request whatever the route — the logger on (level warn, lines to /dev/null,
 * the per-request child made on first use), a UUID request id, the request id header set in one
 * `onSend` hook — and the fixed JSON from one route, with none of the gateway's work (no key check,
 * limits, usage, metrics, CORS). What the gateway costs beyond this is its own; what this costs beyond
 * Fastify alone is the logger and the request id, which every answer of ours carries.
 */
const app = Fastify({
  logger: loggerOptions('warn', pino.destination('/dev/null')),
  genReqId: () => randomUUID(),
  childLoggerFactory: requestLoggerFactory,
  logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
});
app.addHook('onSend', (request, reply, payload, done) => {
  reply.header(REQUEST_ID_HEADER, request.id);
  done(null, payload);
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
