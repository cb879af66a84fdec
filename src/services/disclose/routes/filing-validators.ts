import type { DeclaredParts, PartCheck } from '../../../platform/http/declared-validators.ts';
import { checked } from '../../../platform/http/declared-validators.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import type { Problem } from '../domain/holdings.ts';

/**
 * The filings' declared validators (the operation kit's `validators`). Their path and headers are checked
 * against the declared TypeBox schemas; their bodies by the register's own declared checkers, which list
 * **every** problem at once (a rule of the register the README publishes), where Ajv would stop at the
 * first and coerce a price written as text into a number. The body schema still documents the body in
 * the OpenAPI document.
 *
 * - The fund update: `fundUpdateProblems` (domain/fund-update.ts), on the parsed body.
 * - The holdings: the body is checked as it streams (holdings-parser.ts: bytes, depth, each holding's
 *   rules), so what reaches validation is the parser's product, already checked (`checkedWhileParsed`);
 *   the handler adds the rules of the whole filing (the sum of percentages, the period), again every
 *   problem at once.
 */
const refusal = (problems: readonly Problem[], what: string) =>
  new HttpError(
    PLATFORM_ERRORS.invalidParameter,
    `The ${what} breaks ${problems.length} rule${problems.length === 1 ? '' : 's'}; every problem is listed.`,
    [...problems],
  );

/** A body checked by the register's rules, every problem listed. */
export const everyProblem = (problems: (body: unknown) => Problem[]): PartCheck =>
  checked({ problems }, (found) => refusal(found, 'filing'));

/** A filing's declared validators: `body` for the body, the schemas for the path and headers. */
export const filingValidators = (body: PartCheck): DeclaredParts => ({
  body,
  refuse: (problems, part) => refusal(problems, part),
});
