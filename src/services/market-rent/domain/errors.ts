/**
 * A query parameter that breaks a rule of the rental statistics service. The HTTP layer renders it as a
 * 400 in the API's error dialect; the domain only says which parameter and which rule, so every dialect
 * can name both.
 */
export class ParameterError extends Error {
  override readonly name = 'ParameterError';

  constructor(
    /** The parameter exactly as the client spells it, e.g. `period-ending`. */
    readonly parameter: string,
    /** One sentence that states the rule that was broken, fit to show to the client. */
    message: string,
  ) {
    super(message);
  }
}

export function isParameterError(error: unknown): error is ParameterError {
  return error instanceof ParameterError;
}
