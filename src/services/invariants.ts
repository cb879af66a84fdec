/**
 * The sandbox's invariants run together (`rsg sandbox check`, and the tests): each service's rules
 * (`ServiceDefinition.invariants`) against the sandbox, what breaks them split from the deliberate
 * exceptions each rule names.
 */
import type { InvariantBreak, InvariantContext, ServiceDefinition, ServiceId } from './contract.ts';

export interface InvariantResult {
  service: ServiceId;
  id: string;
  description: string;
  /** The records that break the rule and are no named exception. */
  breaks: InvariantBreak[];
  /** The named exceptions found breaking it (as they should). */
  excepted: InvariantBreak[];
  /** Named exceptions that no longer break it: the list is out of date. */
  staleExceptions: string[];
}

/** Runs every invariant of `services` (in order), each against the same sandbox. */
export async function runInvariants(
  services: readonly ServiceDefinition[],
  context: (service: ServiceDefinition) => InvariantContext,
): Promise<InvariantResult[]> {
  const results: InvariantResult[] = [];
  for (const service of services) {
    for (const invariant of service.invariants ?? []) {
      const found = await invariant.check(context(service));
      const exceptions = invariant.exceptions ?? {};
      const excepted = found.filter((b) => Object.hasOwn(exceptions, b.record));
      const breaking = new Set(excepted.map((b) => b.record));
      results.push({
        service: service.id,
        id: invariant.id,
        description: invariant.description,
        breaks: found.filter((b) => !Object.hasOwn(exceptions, b.record)),
        excepted,
        staleExceptions: Object.keys(exceptions).filter((record) => !breaking.has(record)),
      });
    }
  }
  return results;
}

/** Whether every rule holds: nothing breaks it but its named exceptions, and each of those still does. */
export const invariantsHold = (results: readonly InvariantResult[]): boolean =>
  results.every((r) => r.breaks.length === 0 && r.staleExceptions.length === 0);

/** The report `rsg sandbox check` prints: a line a rule, then up to `examples` breaks of each that fails. */
export function invariantReport(results: readonly InvariantResult[], examples = 5): string {
  const lines: string[] = [];
  for (const r of results) {
    const name = `${r.service}/${r.id}`;
    const failed = r.breaks.length > 0 || r.staleExceptions.length > 0;
    const status = failed
      ? `${r.breaks.length} broken${r.staleExceptions.length ? `, ${r.staleExceptions.length} stale exceptions` : ''}`
      : `ok${r.excepted.length ? ` (${r.excepted.length} named exceptions)` : ''}`;
    lines.push(`${failed ? '✗' : '✓'} ${name}: ${status}. ${r.description}`);
    for (const b of r.breaks.slice(0, examples)) lines.push(`    ${b.record}: ${b.detail}`);
    if (r.breaks.length > examples) lines.push(`    … and ${r.breaks.length - examples} more`);
    for (const record of r.staleExceptions)
      lines.push(`    ${record}: named an exception, but keeps the rule (take it off the list)`);
  }
  const held = results.filter((r) => r.breaks.length === 0 && r.staleExceptions.length === 0).length;
  lines.push(`${held} of ${results.length} rules hold`);
  return `${lines.join('\n')}\n`;
}
