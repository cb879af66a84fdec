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
 * name there (the cross-register rule: one set of New Zealand businesses in every register). A party
 * keeps the name the business had when it filed: a name the entity had before a change counts. The
 * numbers are asked about together. Without the register (a register checked on its own) the rule cannot be judged:
 * one break says so.
 */
export async function partiesUnlikeBusinessRegister(
  registers: Registers | undefined,
  parties: readonly NumberedParty[],
): Promise<InvariantBreak[]> {
  const register = registers?.businessNumbers;
  if (parties.length === 0) return [];
  if (!register) return [noRegister];
  const entities = await register.namesOf(parties.map((party) => party.nzbn));
  const breaks: InvariantBreak[] = [];
  for (const party of parties) {
    const known = entities.get(party.nzbn)?.names ?? [];
    if (known.length === 0)
      breaks.push({
        record: party.record,
        detail: `${party.name}: ${party.nzbn} is no entity of the register`,
      });
    else if (!known.includes(party.name))
      breaks.push({
        record: party.record,
        detail: `${party.name}: ${party.nzbn} is ${known[0]} in the register`,
      });
  }
  return breaks;
}

const noRegister: InvariantBreak = { record: 'nzbn', detail: 'no business number register to compare with' };

/** A party a register names without a business number: the record to report it by and its name. */
export interface NamedParty {
  record: string;
  name: string;
}

/**
 * The parties, New Zealand businesses a register names without a number (the secured interests
 * register's secured parties), whose name no entity of the business number register has or had. The
 * names are asked about together.
 */
export async function namedPartiesNotInBusinessRegister(
  registers: Registers | undefined,
  parties: readonly NamedParty[],
): Promise<InvariantBreak[]> {
  const register = registers?.businessNumbers;
  if (parties.length === 0) return [];
  if (!register) return [noRegister];
  const held = await register.namesHeld(parties.map((party) => party.name));
  const breaks: InvariantBreak[] = [];
  for (const party of parties) {
    if (!held.has(party.name))
      breaks.push({ record: party.record, detail: `${party.name}: no entity of the register has this name` });
  }
  return breaks;
}

/**
 * Overseas parties (an IP office client abroad) that the business number register holds, when they are
 * not registered here: only an overseas company registered in New Zealand (ASIC or non-ASIC) has an
 * entity. `overseasTypes` are the entity types of such companies; a party whose number is an entity of
 * another type, or whose name (without a number) is an entity's, breaks the rule.
 */
export async function overseasPartiesInBusinessRegister(
  registers: Registers | undefined,
  parties: readonly (NamedParty & { nzbn: string | null })[],
  overseasTypes: ReadonlySet<string>,
): Promise<InvariantBreak[]> {
  const register = registers?.businessNumbers;
  if (parties.length === 0) return [];
  if (!register) return [noRegister];
  const numbered = await register.namesOf(parties.flatMap((party) => party.nzbn ?? []));
  const named = await register.namesHeld(parties.flatMap((party) => (party.nzbn === null ? party.name : [])));
  const breaks: InvariantBreak[] = [];
  for (const party of parties) {
    if (party.nzbn !== null) {
      const entity = numbered.get(party.nzbn);
      if (entity && !overseasTypes.has(entity.typeCode))
        breaks.push({
          record: party.record,
          detail: `${party.name}, abroad: ${party.nzbn} is a ${entity.typeCode} entity of the register, not an overseas company`,
        });
    } else if (named.has(party.name))
      breaks.push({
        record: party.record,
        detail: `${party.name}, abroad and not registered here: an entity of the register has this name`,
      });
  }
  return breaks;
}
