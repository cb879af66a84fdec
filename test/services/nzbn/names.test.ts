import { describe, expect, it } from 'vitest';
import { seeded } from '../../../src/platform/random.ts';
import {
  ENTITY_TYPE_CODES,
  ENTITY_TYPES,
  type EntityTypeCode,
} from '../../../src/services/nzbn/domain/codes.ts';
import {
  generateEntityName,
  generateTradingName,
  type NameContext,
} from '../../../src/services/nzbn/sandbox/names.ts';
import { generatePerson } from '../../../src/services/nzbn/sandbox/people.ts';

const context = (seed: string, division: NameContext['division'] = 'E'): NameContext => {
  const random = seeded(seed, 'people');
  return {
    division,
    place: 'Ponsonby',
    town: 'Auckland',
    district: 'Auckland',
    region: 'Auckland',
    people: [generatePerson(random), generatePerson(random)],
  };
};

const names = (type: EntityTypeCode, count = 200) => {
  const random = seeded('names', type);
  return Array.from({ length: count }, (_, i) => generateEntityName(random, type, context(`c${i}`)));
};

/** How each kind of entity's legal name ends (upper-cased where the register upper-cases). */
const ENDINGS: Readonly<Record<EntityTypeCode, RegExp>> = {
  LTD: / LIMITED$/,
  ULTD: / UNLIMITED$/,
  COOP: / CO-OPERATIVE (COMPANY |SOCIETY )?LIMITED$/,
  ASIC: / (PTY LIMITED|PTY LTD|LIMITED)$/,
  NON_ASIC: / (INC\.|LLC|CORPORATION|PTE\. LTD\.|GMBH|LTD|B\.V\.|CO\., LTD\.|S\.A\.)$/,
  B: / BUILDING SOCIETY$/,
  D: / CREDIT UNION$/,
  F: / FRIENDLY SOCIETY$/,
  I: / INCORPORATED$/,
  N: / SOCIETY LIMITED$/,
  S: / (LICENSING TRUST|MAORI TRUST BOARD)$/,
  T: / (TRUST|TRUST BOARD|FOUNDATION TRUST)$/,
  Y: / (LIMITED PARTNERSHIP|LP)$/,
  Z: / (L\.P\.|LP|LIMITED PARTNERSHIP)$/,
  Sole_Trader: /^[A-Z][\w'-]*( [\w' -]+)+$/,
  Partnership: /( & | Partnership$)/,
  Trading_Trust: / Trust$/,
  GovtCentral: /(Authority|Commission|Agency|Office|Council|Board)$|^Office of /,
  GovtLocal: /(Council|Community Board)$/,
  GovtEdu: /(School|Intermediate|College|Kindergarten)$|^Te Kura Kaupapa Maori o /,
  GovtOther: /(Council|Board|Authority)$/,
};

describe('generateEntityName', () => {
  it.each(ENTITY_TYPE_CODES.map((type) => [type]))('names a %s in its register style', (type) => {
    for (const { legalName, stem } of names(type)) {
      expect(legalName).toMatch(ENDINGS[type]);
      expect(legalName).not.toMatch(/ {2}|undefined|null/i);
      expect(stem.trim()).toBe(stem);
      expect(stem.length).toBeGreaterThan(0);
      if (ENTITY_TYPES[type].upperCaseName) expect(legalName).toBe(legalName.toUpperCase());
      else expect(legalName).not.toBe(legalName.toUpperCase());
    }
  });

  it('is deterministic for a seed', () => {
    expect(names('LTD', 50)).toEqual(names('LTD', 50));
  });

  it('varies company names: Maori words, surnames, places and industry words all appear', () => {
    const all = names('LTD', 2_000).map((name) => name.legalName);
    expect(new Set(all).size).toBeGreaterThan(1_500);
    expect(all.some((name) => /\b(KOWHAI|TOTARA|RIMU|KAURI|TUI|NIKAU|MANUKA)\b/.test(name))).toBe(true);
    expect(all.some((name) => / HOLDINGS LIMITED$/.test(name))).toBe(true);
    expect(all.some((name) => /\bPONSONBY\b/.test(name))).toBe(true);
    expect(all.some((name) => /\b(PLUMBING|BUILDERS|CONSTRUCTION|ELECTRICAL)\b/.test(name))).toBe(true);
  });

  it('uses the sole trader own name as the entity name and a trading stem beside it', () => {
    const random = seeded('sole');
    const ctx = context('sole');
    const name = generateEntityName(random, 'Sole_Trader', ctx);
    expect(name.legalName).toBe(`${ctx.people[0]!.firstName} ${ctx.people[0]!.lastName}`);
    expect(name.stem).not.toBe(name.legalName);
  });
});

describe('generateTradingName', () => {
  it('mostly trades under the stem, otherwise under a name in the same trade', () => {
    const random = seeded('trading');
    const ctx = context('trading', 'H');
    const tradingNames = Array.from({ length: 1_000 }, () =>
      generateTradingName(random, 'Kowhai Ridge Cafe', ctx),
    );
    const stem = tradingNames.filter((name) => name === 'Kowhai Ridge Cafe').length;
    expect(stem).toBeGreaterThan(400);
    expect(stem).toBeLessThan(600);
    for (const name of tradingNames) expect(name).not.toMatch(/Limited$/);
  });
});
