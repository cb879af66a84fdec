/**
 * The one error a broken rule is: which field (as the client spells it), which rule, and the message.
 * Domain code throws it without knowing HTTP (no Fastify import here); the platform's error handler
 * renders it in the dialect of the API the request was for (`http/errors.ts`): a 400, or the status of
 * the catalogue code it carries (`http/error-codes.ts`).
 */
import { type ErrorCode, PLATFORM_ERRORS } from './http/error-codes.ts';

export interface RuleErrorOptions {
  /** The whole message; by default `<field>: <rule>`. */
  message?: string;
  /** The catalogue code and status; by default `invalid-parameter` (400). */
  code?: ErrorCode;
}

export class RuleError extends Error {
  override readonly name = 'RuleError';
  readonly code: ErrorCode;

  constructor(
    /** The field or parameter exactly as the client spells it, dotted into bodies: `roles.0.endDate`. */
    readonly field: string,
    /** The rule that was broken, fit to show to the client: `must not be blank`. */
    readonly rule: string,
    options: RuleErrorOptions = {},
  ) {
    super(options.message ?? `${field}: ${rule}`);
    this.code = options.code ?? PLATFORM_ERRORS.invalidParameter;
  }

  /** A rule written as one sentence that names its field itself: the sentence is rule and message. */
  static stated(field: string, sentence: string): RuleError {
    return new RuleError(field, sentence, { message: sentence });
  }

  /** The same broken rule, its field under `prefix` (a nested builder's field named from the body). */
  within(prefix: string): RuleError {
    return new RuleError(`${prefix}${this.field}`, this.rule, { code: this.code });
  }
}
