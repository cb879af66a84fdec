/**
 * The sandbox's organisations for the register's users, organisations and authorities (`GET
 * /organisations`, `/authorities`): at each scale a fixed set, each with an owner, an administrator and a
 * member, an authority the organisation holds over a fixed test case (ACCEPTED) and a member's request
 * for one over another (PENDING, with its letter). Deterministic: the same names, addresses and cases
 * every seed; identity makes them once (`SeedIdentity.seedOrganisation`).
 */
import type { SeedOrganisation, SeedScale } from '../../contract.ts';
import { FIXTURE_CASES } from './fixtures.ts';

/** Organisations per scale. */
export const SEED_ORGANISATIONS: Readonly<Record<SeedScale, number>> = { small: 3, full: 12 };

const FIRMS = [
  'Kauri',
  'Tōtara',
  'Rimu',
  'Mataī',
  'Kahikatea',
  'Miro',
  'Tawa',
  'Pūriri',
  'Karaka',
  'Kōwhai',
  'Ngaio',
  'Hīnau',
];
const KINDS = [
  ['Accountants', 'ACC'],
  ['Legal', 'LOA'],
  ['Business Advisers', 'BAS'],
  ['Payroll Services', 'PAA'],
] as const;
const PEOPLE = [
  ['Aroha', 'Ngata'],
  ['Wei', 'Chen'],
  ['Sione', 'Taufa'],
  ['Priya', 'Sharma'],
  ['James', 'Wilson'],
  ['Mere', 'Parata'],
] as const;

/** The organisations the seed of this scale makes, the first `count` of one fixed list. */
export function seedOrganisations(scale: SeedScale): SeedOrganisation[] {
  return Array.from({ length: SEED_ORGANISATIONS[scale] }, (_, n) => {
    const [kind, categoryCode] = KINDS[n % KINDS.length]!;
    const slug = `sandbox-org-${String(n + 1).padStart(2, '0')}`;
    const person = (i: number) => PEOPLE[(n + i) % PEOPLE.length]!;
    const users = (['owner', 'admin', 'member'] as const).map((role, i) => ({
      email: `${role}.${slug}@sandbox.example`,
      firstName: person(i)[0],
      lastName: person(i)[1],
      role,
    }));
    const held = FIXTURE_CASES[n % FIXTURE_CASES.length]!.nzbn;
    const asked = FIXTURE_CASES[(n + 7) % FIXTURE_CASES.length]!.nzbn;
    return {
      identifier: slug,
      name: `${FIRMS[n % FIRMS.length]} ${kind}`,
      categoryCode,
      users,
      authorities: [
        {
          service: 'nzbn',
          kind: 'entity',
          objectId: held,
          holder: 'organisation',
          status: 'ACCEPTED',
          approvalType: 'USER',
        },
        {
          service: 'nzbn',
          kind: 'entity',
          objectId: asked,
          holder: { email: users[2]!.email },
          status: 'PENDING',
          approvalType: 'REGISTRAR_LETTER',
        },
      ],
    };
  });
}
