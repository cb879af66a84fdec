import { randomBytes } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { grantAuthority } from '../../identity/operations/authorities.ts';
import { addUser } from '../../identity/operations/users.ts';
import { findOrganisationById } from '../../identity/store/organisations.ts';
import { findUserById } from '../../identity/store/users.ts';
import { PLATFORM_ERRORS } from '../../platform/http/error-codes.ts';
import { HttpError } from '../../platform/http/errors.ts';
import { threeLeggedToken } from '../../portal/examples/sign-in.ts';
import type { Runtime } from '../../runtime.ts';

/**
 * Test users and authorities of the sandbox for operators, in the admin scope (/sandbox/admin, the
 * operator's sandbox key; admin.ts): `POST /users` makes a user with a password, the sandbox
 * authorities asked for, and a three-legged sandbox access token got through the OAuth sign-in and
 * consent as any integrator's user gets one; `POST /authorities` grants a user or an organisation
 * authority over a sandbox register object. The test harness's `user()` and `grantAuthority()` are these
 * functions (src/testing/), in its process and over HTTP.
 */
export interface SandboxObject {
  service: string;
  kind: string;
  id: string;
}

export type SandboxHolder = { userId: string } | { organisationId: string };

export interface MadeSandboxUser {
  userId: string;
  email: string;
  password: string;
  token: string;
}

/**
 * A user with a password, authority over `authorities` in the sandbox, and a sandbox access token. The
 * objects are checked before the user is made: a refused one leaves nothing behind.
 */
export async function makeSandboxUser(
  app: FastifyInstance,
  runtime: Runtime,
  options: { email?: string; authorities?: SandboxObject[] } = {},
): Promise<MadeSandboxUser> {
  const authorities = options.authorities ?? [];
  authorities.forEach((object, index) => {
    checkService(runtime, object.service, `authorities.${index}.service`);
  });
  const password = randomBytes(12).toString('base64url');
  const email = options.email ?? `user-${randomBytes(5).toString('hex')}@example.test`;
  const user = await addUser(runtime.gateway.pool, { email, password });
  for (const object of authorities) await grantSandboxAuthority(runtime, { userId: user.id }, object);
  const token = await threeLeggedToken(
    app,
    runtime.gateway.pool,
    { id: user.id, email: user.email, password },
    { environment: 'sandbox', clientName: 'Test suite' },
  );
  return { userId: user.id, email: user.email, password, token };
}

/** The holder's authority over a sandbox register object; a holder that does not exist is a 404. */
export async function grantSandboxAuthority(
  runtime: Runtime,
  holder: SandboxHolder,
  object: SandboxObject,
): Promise<void> {
  checkService(runtime, object.service, 'service');
  const pool = runtime.gateway.pool;
  if ('userId' in holder) {
    if (!UUID.test(holder.userId) || !(await findUserById(pool, holder.userId))) {
      throw new HttpError(PLATFORM_ERRORS.notFound, `There is no user ${holder.userId}`, [
        { field: 'userId', message: 'names no user' },
      ]);
    }
  } else if (
    !UUID.test(holder.organisationId) ||
    !(await findOrganisationById(pool, 'sandbox', holder.organisationId))
  ) {
    throw new HttpError(
      PLATFORM_ERRORS.notFound,
      `There is no sandbox organisation ${holder.organisationId}`,
      [{ field: 'organisationId', message: 'names no sandbox organisation' }],
    );
  }
  await grantAuthority(
    pool,
    { environment: 'sandbox', service: object.service, kind: object.kind, id: object.id },
    holder,
    { at: runtime.clocks.for('sandbox').now() },
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function checkService(runtime: Runtime, service: string, field: string): void {
  if (runtime.services.some((known) => known.id === service)) return;
  const known = runtime.services.map((known) => known.id).join(', ');
  throw new HttpError(PLATFORM_ERRORS.invalidParameter, `${field}: is not a register (${known})`, [
    { field, message: `is not a register (${known})` },
  ]);
}

const ObjectBody = {
  service: Type.String({ minLength: 1, description: 'the register, e.g. `nzbn`' }),
  kind: Type.String({ minLength: 1, description: 'e.g. `entity` (a business number)' }),
  id: Type.String({ minLength: 1, description: "the object's identifier in its register, e.g. an NZBN" }),
};

const UserRequest = Type.Object(
  {
    email: Type.Optional(Type.String({ minLength: 3, maxLength: 254 })),
    authorities: Type.Optional(
      Type.Array(Type.Object(ObjectBody, { additionalProperties: false }), { maxItems: 100 }),
    ),
  },
  { additionalProperties: false },
);

const UserBody = Type.Object({
  userId: Type.String(),
  email: Type.String(),
  password: Type.String(),
  token: Type.String({ description: 'a three-legged sandbox access token: `Authorization: Bearer <token>`' }),
});

const AuthorityRequest = Type.Union([
  Type.Object({ userId: Type.String({ minLength: 1 }), ...ObjectBody }, { additionalProperties: false }),
  Type.Object(
    { organisationId: Type.String({ minLength: 1 }), ...ObjectBody },
    { additionalProperties: false },
  ),
]);

export function sandboxUserRoutes(scope: FastifyInstance, runtime: Runtime): void {
  scope.post<{ Body: Static<typeof UserRequest> }>(
    '/users',
    { schema: { body: UserRequest, response: { 201: UserBody } } },
    async (request, reply) => reply.code(201).send(await makeSandboxUser(scope, runtime, request.body)),
  );
  scope.post<{ Body: Static<typeof AuthorityRequest> }>(
    '/authorities',
    { schema: { body: AuthorityRequest } },
    async (request, reply) => {
      const { service, kind, id, ...holder } = request.body;
      await grantSandboxAuthority(runtime, holder as SandboxHolder, { service, kind, id });
      return reply.code(204).send();
    },
  );
}
