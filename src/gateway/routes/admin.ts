import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  advanceClock,
  ClockError,
  type ClockReading,
  readClock,
  setClock,
} from '../../platform/environment-clocks.ts';
import { PLATFORM_ERRORS, PROBLEM_ERRORS } from '../../platform/http/error-codes.ts';
import { HttpError } from '../../platform/http/errors.ts';
import type { Runtime } from '../../runtime.ts';
import { INVALID_KEY, MISSING_KEY, presentedKey } from '../http/guard.ts';

/**
 * Operator routes of the sandbox, under /sandbox/admin. They take the subscription key of an operator
 * (the admin user created at first start holds one for every sandbox product), so test suites can move
 * the sandbox clock over HTTP with the key they already have.
 */
const ClockBody = Type.Object({
  environment: Type.String(),
  mode: Type.Union([Type.Literal('real'), Type.Literal('virtual')]),
  now: Type.String({ format: 'date-time' }),
  offsetMs: Type.Number(),
  frozen: Type.Boolean(),
});

const AdvanceRequest = Type.Object(
  { duration: Type.String({ minLength: 1, description: 'e.g. 20m, 2h30m, 7d, 1mo, PT2H, P1M' }) },
  { additionalProperties: false },
);
const SetRequest = Type.Object(
  { time: Type.String({ minLength: 1, description: 'ISO 8601 date-time' }) },
  { additionalProperties: false },
);

const show = (reading: ClockReading): Static<typeof ClockBody> => ({
  ...reading,
  now: reading.now.toISOString(),
});

function clockFailure(error: unknown): never {
  if (error instanceof ClockError) throw new HttpError(PROBLEM_ERRORS.clockNotVirtual, error.message);
  if (error instanceof RangeError)
    throw new HttpError(PLATFORM_ERRORS.invalidParameter, error.message, [
      { field: 'duration', message: error.message },
    ]);
  throw error;
}

export async function adminRoutes(app: FastifyInstance, runtime: Runtime): Promise<void> {
  await app.register(
    async (scope) => {
      scope.addHook('onRequest', async (request: FastifyRequest, _reply: FastifyReply) => {
        request.dialect = 'problem';
        const key = presentedKey(request);
        if (!key) throw new HttpError(PROBLEM_ERRORS.missingKey, MISSING_KEY);
        const owner = await runtime.keys.lookup(key);
        if (owner?.state !== 'active' || owner.environment !== 'sandbox') {
          throw new HttpError(PROBLEM_ERRORS.invalidKey, INVALID_KEY);
        }
        if (!owner.isOperator)
          throw new HttpError(PROBLEM_ERRORS.notOperator, 'Only an operator may use the admin routes');
      });
      const pool = runtime.gateway.pool;
      const response = { 200: ClockBody };
      scope.get('/clock', { schema: { response } }, async () => show(await readClock(pool, 'sandbox')));
      scope.post<{ Body: Static<typeof AdvanceRequest> }>(
        '/clock/advance',
        { schema: { body: AdvanceRequest, response } },
        async (request) => {
          const reading = await advanceClock(pool, 'sandbox', request.body.duration).catch(clockFailure);
          await runtime.clocks.reload();
          return show(reading);
        },
      );
      scope.put<{ Body: Static<typeof SetRequest> }>(
        '/clock',
        { schema: { body: SetRequest, response } },
        async (request) => {
          const reading = await Promise.resolve()
            .then(() => setClock(pool, 'sandbox', request.body.time))
            .catch((error: unknown) => {
              if (error instanceof ClockError && /ISO 8601/.test(error.message)) {
                throw new HttpError(PLATFORM_ERRORS.invalidParameter, error.message, [
                  { field: 'time', message: error.message },
                ]);
              }
              return clockFailure(error);
            });
          await runtime.clocks.reload();
          return show(reading);
        },
      );
    },
    { prefix: '/sandbox/admin' },
  );
}
