/**
 * The business number register's rules and their judgement of a page of entities: shared by the check
 * (invariants.ts) and its worker threads (invariants-worker.ts), which judge pages side by side.
 */
import { nzPlaces } from '../../../platform/geography.ts';
import type { InvariantBreak } from '../../contract.ts';
import type { Entity } from '../domain/schema.ts';
import type { EntityToCheck } from '../store/invariants.ts';
import { sandboxDocuments } from './documents.ts';
import {
  addressesReal,
  datesInOrder,
  type EntityRule,
  industryFollowsType,
  numbersPlausible,
  type RuleWorld,
  rolesFollowType,
  sourceRegisterFollowsType,
  statusFollowsType,
} from './entity-rules.ts';
import { generatedEntity } from './seed-rows.ts';

export interface Rule {
  id: string;
  description: string;
  judge: EntityRule;
  exceptions?: Readonly<Record<string, string>>;
}

export const RULES: readonly Rule[] = [
  {
    id: 'source-register-follows-type',
    description:
      'An entity’s source register and its number follow its type (companies and societies numbered by their register; sole traders, partnerships, trusts and public sector bodies by none), company details only for companies',
    judge: sourceRegisterFollowsType,
  },
  {
    id: 'status-follows-type',
    description:
      'Insolvency statuses only for New Zealand companies, Removed for the bodies of a source register, Inactive and Removed/Closed for the rest; hibernation only for a live sole trader, partnership or trust',
    judge: statusFollowsType,
  },
  {
    id: 'roles-follow-type',
    description:
      'A live company has an active director and shareholder, a partnership partners, a trust trustees, a limited partnership its general partner; a sole trader and a public sector body have no roles; directors and partners are persons; liquidators, receivers and administrators only for a company in that insolvency, which has them',
    judge: rolesFollowType,
  },
  {
    id: 'industry-follows-type',
    description:
      'Industry codes are BIC codes with their published descriptions, in an ANZSIC division the entity type works in (a school in education, a council in public administration, a credit union in finance)',
    judge: industryFollowsType,
  },
  {
    id: 'dates-in-order',
    description:
      'Registration ≤ every role, address, trading name and area, GST number and bank account ≤ its end ≤ the last update (for a removed entity, its removal) ≤ today; earlier names one after another from the registration',
    judge: datesInOrder,
  },
  {
    id: 'numbers-plausible',
    description:
      'GST numbers pass the IRD check; an Australian business number passes its check, belongs to a company and, with an Australian company number, is that number’s',
    judge: numbersPlausible,
  },
  {
    id: 'addresses-real',
    description:
      'Every New Zealand address names a suburb of its town and that suburb’s postcode, on the 2019 statistical geography; a New Zealand company’s registered office is in New Zealand',
    judge: addressesReal,
  },
];

/** What the rules compare with on the sandbox's today. */
export const ruleWorld = (todayMs: number): RuleWorld => ({
  todayMs,
  places: nzPlaces(),
});

/**
 * Each rule's breaks among `rows` (each judged on its stored document, or on the generated one made
 * again when the seed did not store it), in the rules' order and the rows' order.
 */
export function judgePage(rows: readonly EntityToCheck[], world: RuleWorld): InvariantBreak[][] {
  const found: InvariantBreak[][] = RULES.map(() => []);
  for (const row of rows) {
    const entity =
      row.document !== null
        ? (JSON.parse(row.document) as Entity)
        : row.seedIndex !== null
          ? generatedEntity(row.seedIndex, sandboxDocuments.seed)
          : null;
    if (entity === null) continue;
    const facts = { ...row, entity };
    RULES.forEach((rule, i) => {
      const problems = rule.judge(facts, world);
      if (problems.length > 0) found[i]!.push({ record: row.nzbn, detail: problems.join('; ') });
    });
  }
  return found;
}
