import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
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

/**
 * The sandbox clock for operators, in the admin scope (/sandbox/admin, the operator's sandbox key;
 * admin.ts): `GET /clock`, `POST /clock/advance`, `PUT /clock`, so test suites move the sandbox clock
 * over HTTP with the key they already have.
 */
export const ClockBody = Type.Object({
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

export const showClock = (reading: ClockReading): Static<typeof ClockBody> => ({
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

export function clockRoutes(scope: FastifyInstance, runtime: Runtime): void {
  const pool = runtime.gateway.pool;
  const response = { 200: ClockBody };
  scope.get('/clock', { schema: { response } }, async () => showClock(await readClock(pool, 'sandbox')));
  scope.post<{ Body: Static<typeof AdvanceRequest> }>(
    '/clock/advance',
    { schema: { body: AdvanceRequest, response } },
    async (request) => {
      const reading = await advanceClock(pool, 'sandbox', request.body.duration).catch(clockFailure);
      await runtime.clocks.reload();
      return showClock(reading);
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
      return showClock(reading);
    },
  );
}
