import { Type } from '@sinclair/typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditDeclaredInput, checked, streamed } from '../../src/platform/http/declared-validators.ts';
import { PLATFORM_ERRORS } from '../../src/platform/http/error-codes.ts';
import { HttpError, installErrorHandling } from '../../src/platform/http/errors.ts';
import { declareOperation, typed } from '../../src/platform/http/operation.ts';
import { SERVICES } from '../../src/services/registry.ts';
import { testGateway } from '../support/runtime.ts';

/**
 * Declared validators (`declareOperation`'s `validators`): a body streamed to the operation, a body the
 * register checks itself (every problem listed, or its typed input made), headers with rules of their
 * own; every other part against its schema, converted as Fastify converts, its problems refused as
 * declared. A body type with no validator, or a hand-wired validatorCompiler, fails the route.
 */
const refuse = (problems: readonly { field: string; message: string }[], part: string) =>
  new HttpError(PLATFORM_ERRORS.invalidParameter, `The ${part} is not valid.`, [...problems]);

function app() {
  const server = Fastify({ logger: false });
  installErrorHandling(server);
  server.addHook('onRequest', async (request) => {
    request.dialect = 'problem';
  });
  server.addContentTypeParser('text/xml', (_request, _payload, done) => done(null, undefined));
  return server;
}

const api = app();
const seen: unknown[] = [];
beforeAll(async () => {
  typed(api).post(
    '/items/:id',
    declareOperation(
      {
        schema: {
          params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
          headers: Type.Object({ 'x-tag': Type.Optional(Type.String({ maxLength: 3 })) }),
          body: {
            content: {
              'application/json': { schema: Type.Object({ a: Type.Number(), b: Type.Number() }) },
              'text/xml': { schema: Type.String() },
            },
          },
        },
      },
      {
        produces: ['application/json'],
        validators: {
          body: {
            'application/json': checked(
              {
                problems: (body) =>
                  ['a', 'b']
                    .filter((key) => typeof (body as Record<string, unknown>)?.[key] !== 'number')
                    .map((field) => ({ field, message: 'must be a number' })),
              },
              (problems) => refuse(problems, 'body'),
            ),
            'text/xml': streamed,
          },
          refuse,
        },
      },
    ),
    async (request) => {
      seen.push(request.body);
      return { id: request.params.id, type: typeof request.params.id };
    },
  );
  await api.ready();
});
afterAll(async () => api.close());

describe('a declared operation', () => {
  it('converts a path parameter as Fastify does, and types it', async () => {
    const answer = await api.inject({ method: 'POST', url: '/items/7', payload: { a: 1, b: 2 } });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json()).toEqual({ id: 7, type: 'number' });
  });

  it('refuses every problem of a path parameter and a header, naming them', async () => {
    const path = await api.inject({ method: 'POST', url: '/items/0', payload: { a: 1, b: 2 } });
    expect(path.statusCode).toBe(400);
    expect(path.json().errors.map((e: { field: string }) => e.field)).toContain('id');
    const header = await api.inject({
      method: 'POST',
      url: '/items/1',
      headers: { 'x-tag': 'toolong' },
      payload: { a: 1, b: 2 },
    });
    expect(header.statusCode).toBe(400);
    expect(header.json().errors.map((e: { field: string }) => e.field)).toContain('x-tag');
  });

  it('lists every problem the register finds in a body it checks itself', async () => {
    const answer = await api.inject({ method: 'POST', url: '/items/1', payload: { a: 'one', b: 'two' } });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().errors.map((e: { field: string }) => e.field)).toEqual(['a', 'b']);
  });

  it('leaves a streamed body unread for the operation', async () => {
    seen.length = 0;
    const answer = await api.inject({
      method: 'POST',
      url: '/items/1',
      headers: { 'content-type': 'text/xml' },
      payload: '<a/>',
    });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(seen).toEqual([undefined]);
  });

  it('a streamed body Fastify parsed anyway is refused, never passed on unchecked', () => {
    expect(streamed(undefined)).toBe(true);
    expect(streamed(null)).toBe(true);
    expect(streamed('<a/>')).toHaveProperty('error');
  });

  it('a checked body may be replaced by the typed input its check makes', () => {
    const parse = checked({ parse: (body) => ({ parsed: body }) });
    expect(parse('x')).toEqual({ value: { parsed: 'x' } });
    const refused = checked({
      parse: () => {
        throw new Error('no');
      },
    })('x');
    expect(refused).toHaveProperty('error');
  });
});

describe('a route without a validator for a part', () => {
  it('fails at start-up when a body type has none declared', async () => {
    const server = app();
    server.post(
      '/x',
      declareOperation(
        {
          schema: {
            body: {
              content: {
                'application/json': { schema: Type.Object({}) },
                'text/xml': { schema: Type.String() },
              },
            },
          },
        },
        { produces: ['application/json'], validators: { body: { 'text/xml': streamed }, refuse } },
      ),
      async () => ({}),
    );
    await expect(server.ready()).rejects.toThrow(/no validator is declared for a body of application\/json/);
  });

  it('refuses a hand-wired validatorCompiler on a declared operation', () => {
    expect(() =>
      declareOperation({ validatorCompiler: () => () => true }, { produces: ['application/json'] }),
    ).toThrow(/declares its validators/);
  });
});

describe('the audit of a register route’s input (installed on every register’s scope)', () => {
  it('refuses a path parameter without a schema and a body without a validator', () => {
    expect(() => auditDeclaredInput({ method: 'GET', url: '/things/:id' })).toThrow(
      /path parameter id has no declared schema/,
    );
    expect(() =>
      auditDeclaredInput({
        method: 'GET',
        url: '/things/:id/:part',
        schema: { params: Type.Object({ id: Type.String() }) },
      }),
    ).toThrow(/path parameter part/);
    expect(() => auditDeclaredInput({ method: 'POST', url: '/things' })).toThrow(/the body has neither/);
    expect(() =>
      auditDeclaredInput({
        method: ['GET', 'HEAD'],
        url: '/things/:id',
        schema: { params: Type.Object({ id: Type.String() }) },
      }),
    ).not.toThrow();
    expect(() =>
      auditDeclaredInput({ method: 'PUT', url: '/things', schema: { body: Type.Object({}) } }),
    ).not.toThrow();
  });

  it('stops the gateway from starting with a register route that takes input unchecked', async () => {
    const unchecked = SERVICES.map((service) =>
      service.id === 'market-rent'
        ? {
            ...service,
            routes: async (app: FastifyInstance) => {
              app.post('/unchecked', async () => ({}));
            },
          }
        : service,
    );
    await expect(testGateway({ app: { services: unchecked } })).rejects.toThrow(
      /POST \S*\/unchecked: the body has neither a declared schema nor declared validators/,
    );
  }, 60_000);
});
