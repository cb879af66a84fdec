import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors.ts';

/**
 * PostgreSQL's text and jsonb cannot hold the NUL character (U+0000): a value with one would fail in the
 * database as a 500 after validation had passed. Every request's query, path parameters and parsed body
 * are checked first, and the first such value is refused as a 400 naming its field (dotted path, as
 * schema errors name fields), in the API's own error dialect.
 */
const NUL = '\u0000';
const RULE = 'must not contain the NUL character (U+0000)';

/** The dotted path of the first string (or object key) holding a NUL character, if any. */
export function findNulCharacter(value: unknown, path: string[] = []): string | undefined {
  if (typeof value === 'string') {
    return value.includes(NUL) ? (path.length > 0 ? path.join('.') : 'body') : undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNulCharacter(value[i], [...path, String(i)]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object' && !Buffer.isBuffer(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes(NUL)) return [...path, key.replaceAll(NUL, '\\u0000')].join('.');
      const found = findNulCharacter(item, [...path, key]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

export function installInputTextCheck(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    // The HTTP parser refuses a raw NUL in the request line, so one can reach the query or the path
    // parameters only as %00: without it in the URL (most calls) only the body is walked.
    const inUrl = request.url.includes('%00');
    const field =
      (inUrl ? (findNulCharacter(request.query) ?? findNulCharacter(request.params)) : undefined) ??
      (request.body === undefined ? undefined : findNulCharacter(request.body));
    done(field === undefined ? undefined : badRequest(field, RULE));
  });
}
