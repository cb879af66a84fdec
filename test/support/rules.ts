import { RuleError } from '../../src/platform/errors.ts';

/** The field and rule a call breaks (a `RuleError`); fails when it breaks none or throws anything else. */
export function broken(call: () => unknown): { field: string; rule: string } {
  try {
    call();
  } catch (error) {
    if (error instanceof RuleError) return { field: error.field, rule: error.rule };
    throw error;
  }
  throw new Error('no rule was broken');
}
