import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  forgetCompiled,
  keepCompiledCode,
  sharedSerializers,
  shareValidators,
} from '../../src/platform/http/schema-compilers.ts';

// Compiled validators and serializers kept as code in a folder (what a test harness's new process
// reads instead of compiling): the answers of an app built from kept code are the answers of one that
// compiled, and the kept code is what such an app runs.

const body = {
  type: 'object',
  required: ['email', 'count'],
  additionalProperties: false,
  properties: {
    email: { type: 'string', format: 'email', maxLength: 60 },
    count: { type: 'integer', minimum: 1 },
    when: { type: 'string', format: 'date-time' },
  },
};
const answer = {
  type: 'object',
  properties: {
    email: { type: 'string' },
    count: { type: 'integer' },
    shape: {
      anyOf: [
        { type: 'object', properties: { kind: { const: 'a' }, a: { type: 'string' } }, required: ['kind'] },
        { type: 'object', properties: { kind: { const: 'b' }, b: { type: 'integer' } }, required: ['kind'] },
      ],
    },
  },
};

function app(): FastifyInstance {
  const app = Fastify({
    ajv: { onCreate: shareValidators },
    schemaController: { compilersFactory: { buildSerializer: sharedSerializers } },
  });
  app.post('/things', { schema: { body, response: { 200: answer } } }, async (request) => {
    const { email, count } = request.body as { email: string; count: number };
    return {
      email,
      count,
      secret: 'not in the schema',
      shape: count % 2 ? { kind: 'a', a: 'x', extra: 1 } : { kind: 'b', b: count, extra: 1 },
    };
  });
  return app;
}

const requests = [
  { email: 'a@example.test', count: 1 },
  { email: 'b@example.test', count: 2, when: '2026-01-05T09:00:00Z' },
  { email: 'not an address', count: 1 },
  { email: 'a@example.test', count: 0 },
  { email: 'a@example.test', count: 1, when: 'yesterday' },
  // Fastify's Ajv drops what the schema does not name.
  { email: 'a@example.test', count: 1, more: true },
];

async function answersOf(): Promise<Array<{ status: number; body: string }>> {
  const server = app();
  try {
    const answers = [];
    for (const payload of requests) {
      const response = await server.inject({ method: 'POST', url: '/things', payload });
      answers.push({ status: response.statusCode, body: response.body });
    }
    return answers;
  } finally {
    await server.close();
  }
}

describe('compiled schemas kept as code', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'rsg-compiled-'));
  });
  afterEach(() => {
    keepCompiledCode(undefined);
    forgetCompiled();
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('answers from kept code as it answers from compiled schemas', async () => {
    forgetCompiled();
    const compiled = await answersOf();
    expect(compiled.map((answer) => answer.status)).toEqual([200, 200, 400, 400, 400, 200]);
    expect(JSON.parse(compiled[0]!.body)).toEqual({
      email: 'a@example.test',
      count: 1,
      shape: { kind: 'a', a: 'x' },
    });

    keepCompiledCode(folder);
    forgetCompiled();
    const keeping = await answersOf();
    const kept = await readdir(folder);
    expect(kept.filter((name) => name.startsWith('validator-'))).toHaveLength(1);
    expect(kept.filter((name) => name.startsWith('serializer-'))).toHaveLength(1);

    forgetCompiled();
    const fromKept = await answersOf();
    expect(keeping).toEqual(compiled);
    expect(fromKept).toEqual(compiled);
  });

  it('runs the kept code, not a compile of the schema', async () => {
    keepCompiledCode(folder);
    forgetCompiled();
    await answersOf();
    const validator = (await readdir(folder)).find((name) => name.startsWith('validator-'))!;
    await writeFile(
      path.join(folder, validator),
      'module.exports = function refuse() { refuse.errors = [{ instancePath: "/kept", schemaPath: "#", keyword: "kept", params: {}, message: "came from the kept code" }]; return false; };',
    );
    forgetCompiled();
    const answers = await answersOf();
    expect(answers[0]!.status).toBe(400);
    expect(answers[0]!.body).toContain('came from the kept code');
  });
});
