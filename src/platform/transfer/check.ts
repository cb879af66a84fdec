/**
 * A record's check with the register's own API rules: its TypeBox schema (the one the API validates
 * bodies with), then the register's further rules, which throw `RuleError` as they do behind the API.
 * Every broken rule comes back as a field (dotted, as `RuleError` spells it: `debtors.0.name`) and a rule.
 */
import type { TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { RuleError } from '../errors.ts';

export interface RecordProblem {
  field: string;
  rule: string;
}

/** At most this many problems are reported for one record (the first ones). */
const PER_RECORD = 5;

/** Each schema compiled once: a conforming record (nearly every one) is checked by compiled code. */
const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** The schema's broken rules for `value`, each with its field; none when it conforms. */
export function schemaProblems(schema: TSchema, value: unknown): RecordProblem[] {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  if (check.Check(value)) return [];
  const problems: RecordProblem[] = [];
  for (const error of Value.Errors(schema, value)) {
    const field = error.path.replace(/^\//, '').replaceAll('/', '.') || '(record)';
    // A union's failure repeats for each branch: the first per field says it.
    if (problems.some((p) => p.field === field)) continue;
    problems.push({ field, rule: error.message.toLowerCase() });
    if (problems.length >= PER_RECORD) break;
  }
  return problems;
}

/** Runs a rule check that throws `RuleError`: the problem it names, or none. Other errors pass through. */
export function ruleProblems(check: () => void): RecordProblem[] {
  try {
    check();
    return [];
  } catch (error) {
    if (error instanceof RuleError) return [{ field: error.field, rule: error.rule }];
    throw error;
  }
}
