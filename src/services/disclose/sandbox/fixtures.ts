import type { FixtureShape } from './generator.ts';

/**
 * The fixed test cases of the sandbox (the README's table): the first schemes and offers, shaped so every
 * rule can be tried against them. Scheme n goes with offer n + 1 (SCH10000 with OFR10001 …).
 */
export const FIXTURES: readonly (FixtureShape & { note: string; authority: boolean })[] = [
  {
    note: '11 participants, 11 documents of every kind, 11 funds (the 10-item cut and its links); FND10001 has its last ended fund update and FPH periods unfiled; the scheme has 2 further offers (numbered after all others) and 3 notices, the first with 11 documents',
    participants: 11,
    documents: 11,
    funds: 11,
    fphFiled: 'all-but-last',
    furtherOffers: 2,
    schemeNotices: [11, 1, 2],
    authority: true,
  },
  {
    note: 'exactly 10 participants, 10 documents and 2 funds (no cut); every FPH period filed',
    participants: 10,
    documents: 10,
    funds: 2,
    fphFiled: 'all',
    authority: true,
  },
  {
    note: 'one fund that has never filed its full portfolio holdings; the operators have no authority over it; the offer has 2 notices, the scheme 1',
    participants: 3,
    documents: 1,
    funds: 1,
    fphFiled: 'none',
    schemeNotices: [1],
    offerNotices: [2, 1],
    authority: false,
  },
];
