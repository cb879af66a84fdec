import { describe, expect, it } from 'vitest';
import type { ServiceDefinition } from '../../src/services/contract.ts';
import { invariantReport, invariantsHold, runInvariants } from '../../src/services/invariants.ts';

/** The sandbox check's runner: breaks, named exceptions, and exceptions that no longer break the rule. */
const service = (records: string[], exceptions: Record<string, string> = {}) =>
  ({
    id: 'ppsr',
    invariants: [
      {
        id: 'rule',
        description: 'A rule.',
        exceptions,
        check: async () => records.map((record) => ({ record, detail: `${record} breaks it` })),
      },
    ],
  }) as unknown as ServiceDefinition;
const run = (definition: ServiceDefinition) => runInvariants([definition], () => ({}) as never);

describe('the sandbox check', () => {
  it('holds when nothing breaks a rule', async () => {
    const results = await run(service([]));
    expect(invariantsHold(results)).toBe(true);
    expect(invariantReport(results)).toBe('✓ ppsr/rule: ok. A rule.\n1 of 1 rules hold\n');
  });

  it('reports what breaks a rule, a few examples and the count', async () => {
    const results = await run(service(['A', 'B', 'C', 'D', 'E', 'F', 'G']));
    expect(invariantsHold(results)).toBe(false);
    const report = invariantReport(results, 2);
    expect(report).toContain('✗ ppsr/rule: 7 broken. A rule.');
    expect(report).toContain('    A: A breaks it\n    B: B breaks it\n    … and 5 more');
    expect(report).toContain('0 of 1 rules hold');
  });

  it('passes over a named exception, and fails when the exception no longer breaks the rule', async () => {
    const excepted = await run(service(['FIX1'], { FIX1: 'overdue on purpose' }));
    expect(invariantsHold(excepted)).toBe(true);
    expect(excepted[0]!.excepted).toEqual([{ record: 'FIX1', detail: 'FIX1 breaks it' }]);
    expect(invariantReport(excepted)).toContain('ok (1 named exceptions)');
    const stale = await run(service([], { FIX1: 'overdue on purpose' }));
    expect(invariantsHold(stale)).toBe(false);
    expect(invariantReport(stale)).toContain('FIX1: named an exception, but keeps the rule');
  });
});
