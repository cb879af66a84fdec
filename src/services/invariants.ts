/**
 * The sandbox's invariants run together (`rsg sandbox check`, and the tests): each service's rules
 * (`ServiceDefinition.invariants`) against the sandbox, what breaks them split from the deliberate
 * exceptions each rule names.
 */
import type {
  InvariantBreak,
  InvariantContext,
  Registers,
  ServiceDefinition,
  ServiceId,
} from './contract.ts';

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

/** A party a register names by business number: the record to report it by, its number and its name. */
export interface NumberedParty {
  record: string;
  nzbn: string;
  name: string;
}

/**
 * The parties whose business number is no entity of the business number register, or one of another
 * name there (the cross-register rule: one set of New Zealand businesses in every register). Each number
 * is asked once. Without the register (a register checked on its own) the rule cannot be judged: one
 * break says so.
 */
export async function partiesUnlikeBusinessRegister(
  registers: Registers | undefined,
  parties: readonly NumberedParty[],
): Promise<InvariantBreak[]> {
  const register = registers?.businessNumbers;
  if (parties.length === 0) return [];
  if (!register) return [{ record: 'nzbn', detail: 'no business number register to compare with' }];
  const entities = new Map<string, { name: string } | undefined>();
  const breaks: InvariantBreak[] = [];
  for (const party of parties) {
    if (!entities.has(party.nzbn)) entities.set(party.nzbn, await register.find(party.nzbn));
    const entity = entities.get(party.nzbn);
    if (!entity)
      breaks.push({
        record: party.record,
        detail: `${party.name}: ${party.nzbn} is no entity of the register`,
      });
    else if (entity.name !== party.name)
      breaks.push({
        record: party.record,
        detail: `${party.name}: ${party.nzbn} is ${entity.name} in the register`,
      });
  }
  return breaks;
}
