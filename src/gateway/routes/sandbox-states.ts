import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { PLATFORM_ERRORS, PROBLEM_ERRORS } from '../../platform/http/error-codes.ts';
import { HttpError } from '../../platform/http/errors.ts';
import { type Replacement, SandboxStateError, type SnapshotSummary } from '../../platform/sandbox/states.ts';
import type { Runtime } from '../../runtime.ts';
import { ClockBody, showClock } from './admin-clock.ts';

/**
 * The sandbox's reset and snapshots for operators, in the admin scope (/sandbox/admin, the operator's
 * sandbox key; admin.ts): `POST /reset`, `GET /snapshots`, `PUT /snapshots/{name}`,
 * `POST /snapshots/{name}/restore`, `DELETE /snapshots/{name}`. What they do is
 * platform/sandbox/states.ts; docs/operations.md, "Sandbox reset and snapshots", for operators.
 */
const ReplacementBody = Type.Object({
  state: Type.String({ description: '`seed:<scale>` or the snapshot restored' }),
  seeded: Type.Boolean({ description: 'the seeded state was made first (a fresh seed)' }),
  tookMs: Type.Number(),
  pausedMs: Type.Number({ description: 'how long sandbox requests were held' }),
  clock: ClockBody,
});

const SnapshotBody = Type.Object({
  name: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  clockAt: Type.String({ format: 'date-time' }),
  clockFrozen: Type.Boolean(),
});

/** As `rsg sandbox reset [--scale small|full] [--reseed]`. */
const ResetQuery = Type.Object(
  {
    scale: Type.Optional(
      Type.Union([Type.Literal('small'), Type.Literal('full')], {
        description: 'the seeded state to go back to (`RSG_SEED_SCALE` unless given)',
      }),
    ),
    reseed: Type.Optional(
      Type.Boolean({
        description:
          'make the seeded state again from a fresh seed first (as long as a seed takes: minutes at full scale)',
      }),
    ),
  },
  { additionalProperties: false },
);

const SnapshotList = Type.Object({ snapshots: Type.Array(SnapshotBody) });
const NameParams = Type.Object({ name: Type.String() });
type Name = { Params: Static<typeof NameParams> };

const showReplacement = (replacement: Replacement): Static<typeof ReplacementBody> => ({
  ...replacement,
  clock: showClock(replacement.clock),
});

const showSnapshot = (snapshot: SnapshotSummary): Static<typeof SnapshotBody> => ({
  name: snapshot.name,
  createdAt: snapshot.createdAt.toISOString(),
  clockAt: snapshot.clockAt.toISOString(),
  clockFrozen: snapshot.clockFrozen,
});

/**
 * A refused name is a 400 naming `name`; an unknown snapshot, a 404; a database user who may not create
 * or alter databases (docs/operations.md: `CREATEDB`, owning the sandbox database), a 409 saying so.
 */
function stateFailure(error: unknown): never {
  if ((error as { code?: unknown })?.code === '42501') {
    throw new HttpError(
      PROBLEM_ERRORS.conflict,
      `The database user may not copy or replace the sandbox database (${(error as Error).message}): it needs CREATEDB and must own the sandbox database`,
    );
  }
  if (error instanceof SandboxStateError) {
    if (error.kind === 'no-such-snapshot') throw new HttpError(PLATFORM_ERRORS.notFound, error.message);
    throw new HttpError(PLATFORM_ERRORS.invalidParameter, error.message, [
      { field: 'name', message: error.message.replace(/^name: /, '') },
    ]);
  }
  throw error;
}

export function sandboxStateRoutes(scope: FastifyInstance, runtime: Runtime): void {
  const states = runtime.sandboxStates;
  scope.post<{ Querystring: Static<typeof ResetQuery> }>(
    '/reset',
    { schema: { querystring: ResetQuery, response: { 200: ReplacementBody } } },
    async (request) => {
      const { scale = runtime.config.seedScale, reseed = false } = request.query;
      return showReplacement(await states.reset(scale, { reseed }).catch(stateFailure));
    },
  );
  scope.get('/snapshots', { schema: { response: { 200: SnapshotList } } }, async () => ({
    snapshots: (await states.snapshots()).map(showSnapshot),
  }));
  scope.put<Name>(
    '/snapshots/:name',
    { schema: { params: NameParams, response: { 200: SnapshotBody } } },
    async (request) => showSnapshot(await states.snapshot(request.params.name).catch(stateFailure)),
  );
  scope.post<Name>(
    '/snapshots/:name/restore',
    { schema: { params: NameParams, response: { 200: ReplacementBody } } },
    async (request) => showReplacement(await states.restore(request.params.name).catch(stateFailure)),
  );
  scope.delete<Name>('/snapshots/:name', { schema: { params: NameParams } }, async (request, reply) => {
    const deleted = await states.delete(request.params.name).catch(stateFailure);
    if (!deleted)
      stateFailure(
        new SandboxStateError('no-such-snapshot', `there is no snapshot named "${request.params.name}"`),
      );
    return reply.code(204).send();
  });
}
