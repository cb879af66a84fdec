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

/** A path from the root: the last step and the path before it. */
type Steps = { before: Steps; step: string } | undefined;

const dotted = (steps: Steps): string[] => {
  const names: string[] = [];
  for (let at = steps; at; at = at.before) names.unshift(at.step);
  return names;
};

/**
 * The dotted path of the first string (or object key) holding a NUL character, if any. The walk keeps
 * its own stack (in the order a recursive walk would take): a body nested thousands of levels deep is
 * the schema's to refuse, not a stack overflow (a 500).
 */
export function findNulCharacter(value: unknown, path: string[] = []): string | undefined {
  const root = path.reduce<Steps>((before, step) => ({ before, step }), undefined);
  // A key is checked just before its value is walked.
  const stack: ({ value: unknown; at: Steps } | { key: string; at: Steps })[] = [{ value, at: root }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    if ('key' in next) {
      if (next.key.includes(NUL)) return [...dotted(next.at), next.key.replaceAll(NUL, '\\u0000')].join('.');
      continue;
    }
    const { value: item, at } = next;
    if (typeof item === 'string') {
      if (item.includes(NUL)) return at ? dotted(at).join('.') : 'body';
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--)
        stack.push({ value: item[i], at: { before: at, step: String(i) } });
    } else if (item && typeof item === 'object' && !Buffer.isBuffer(item)) {
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, inner] = entries[i]!;
        stack.push({ value: inner, at: { before: at, step: key } }, { key, at });
      }
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
