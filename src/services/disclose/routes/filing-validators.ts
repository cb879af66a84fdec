import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { FastifySchemaCompiler } from 'fastify';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import type { Problem } from '../domain/holdings.ts';

/**
 * The filings' validators. Their path and headers are checked against the declared TypeBox schemas; their
 * bodies by the register's own declared checkers, which list **every** problem at once (a rule of the
 * register the README publishes), where Ajv would stop at the first and coerce a price written as text
 * into a number. The body schema still documents the body in the OpenAPI document.
 *
 * - The fund update: `fundUpdateProblems` (domain/fund-update.ts), on the parsed body.
 * - The holdings: the body is checked as it streams (holdings-parser.ts: bytes, depth, each holding's
 *   rules), so what reaches validation is the parser's product, already checked; the handler adds the
 *   rules of the whole filing (the sum of percentages, the period), again every problem at once.
 */
export type BodyChecker = (body: unknown) => Problem[];

/** The holdings filing's body: checked while it streamed (holdings-parser.ts); nothing is left to check. */
export const checkedWhileStreamed: BodyChecker = () => [];

const refusal = (problems: readonly Problem[], what: string) =>
  new HttpError(
    PLATFORM_ERRORS.invalidParameter,
    `The ${what} breaks ${problems.length} rule${problems.length === 1 ? '' : 's'}; every problem is listed.`,
    [...problems],
  );

/** `holdings.0.isin` from the TypeBox error path `/holdings/0/isin`. */
const fieldOf = (path: string, part: string) => path.replace(/^\//, '').replaceAll('/', '.') || part;

/** A route's `validatorCompiler`: TypeBox for the path and headers, the declared checker for the body. */
export function filingValidators(body: BodyChecker) {
  return ({ schema, httpPart }: Parameters<FastifySchemaCompiler<unknown>>[0]) => {
    if (httpPart === 'body') {
      return (data: unknown) => {
        const problems = body(data);
        return problems.length === 0 ? true : { error: refusal(problems, 'filing') };
      };
    }
    const compiled = TypeCompiler.Compile(schema as TSchema);
    const part = httpPart ?? 'request';
    return (data: unknown) => {
      if (compiled.Check(data)) return true;
      const problems = [...compiled.Errors(data)].map((error) => ({
        field: fieldOf(error.path, part),
        message: error.message,
      }));
      return { error: refusal(problems, part) };
    };
  };
}
