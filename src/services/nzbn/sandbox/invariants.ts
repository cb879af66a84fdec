/**
 * The rules the business number register's generated sandbox keeps (`rsg sandbox check`; listed in the
 * README): entity types, statuses, roles and industry codes that agree with one another, dates in
 * order, plausible GST and Australian business numbers, and addresses on the real geography. They are
 * judged on each generated and fixed entity's document (entity-rules.ts), read a page at a time from the
 * store (store/invariants.ts), the unchanged generated ones made again by the generator: one pass over
 * the register serves every rule of a check.
 */
import type { InvariantBreak, InvariantContext, SandboxInvariant } from '../../contract.ts';
import type { Entity } from '../domain/schema.ts';
import { entitiesToCheck } from '../store/invariants.ts';
import { sandboxDocuments } from './documents.ts';
import {
  addressesReal,
  datesInOrder,
  type EntityRule,
  industryFollowsType,
  numbersPlausible,
  placesOf,
  type RuleWorld,
  rolesFollowType,
  sourceRegisterFollowsType,
  statusFollowsType,
} from './entity-rules.ts';
import { generatedEntity, sandboxGeography } from './seed-rows.ts';

const PAGE = 2_000;

interface Rule {
  id: string;
  description: string;
  judge: EntityRule;
  exceptions?: Readonly<Record<string, string>>;
}

const RULES: readonly Rule[] = [
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

type Findings = Map<string, InvariantBreak[]>;
/** One pass a check: every rule's findings, by the context the check runs with. */
const passes = new WeakMap<InvariantContext, Promise<Findings>>();

function findings(context: InvariantContext): Promise<Findings> {
  let pass = passes.get(context);
  if (!pass) {
    pass = judgeRegister(context);
    passes.set(context, pass);
  }
  return pass;
}

async function judgeRegister({ database, clock }: InvariantContext): Promise<Findings> {
  const world: RuleWorld = { todayMs: clock.now().getTime(), places: placesOf(sandboxGeography()) };
  const found: Findings = new Map(RULES.map((rule) => [rule.id, []]));
  let after = '';
  for (;;) {
    const page = await entitiesToCheck(database.pool, after, PAGE);
    for (const row of page) {
      const entity =
        row.document !== null
          ? (JSON.parse(row.document) as Entity)
          : row.seedIndex !== null
            ? generatedEntity(row.seedIndex, sandboxDocuments.seed)
            : null;
      if (entity === null) continue;
      const facts = { ...row, entity };
      for (const rule of RULES) {
        const problems = rule.judge(facts, world);
        if (problems.length > 0) found.get(rule.id)!.push({ record: row.nzbn, detail: problems.join('; ') });
      }
    }
    if (page.length < PAGE) return found;
    after = page.at(-1)!.nzbn;
  }
}

export const NZBN_INVARIANTS: readonly SandboxInvariant[] = RULES.map((rule) => ({
  id: rule.id,
  description: rule.description,
  ...(rule.exceptions ? { exceptions: rule.exceptions } : {}),
  check: async (context) => (await findings(context)).get(rule.id)!,
}));
