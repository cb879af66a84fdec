import fc from 'fast-check';
import type { ServiceFixture, Values } from '../../../support/service-fixture.ts';
import { type Bond, importInto, marketRentGateway } from './api.ts';

/**
 * Rental statistics' fixture for the shared harnesses (test/support/security-matrix.ts,
 * test/support/fuzz-operations.ts): every operation is public to a subscriber (a key, no user token);
 * bonds in two SA2 areas over six months, so valid queries compute; the values the fuzzer draws from are
 * the definitions, areas and labels the service itself publishes, and valid statistics queries.
 */
const KAIKOURA = '308900';
const RANGES = '308800';

const bonds = (): Bond[] =>
  ['2025-10', '2025-11', '2025-12', '2026-01', '2026-02', '2026-03'].flatMap((month, m) =>
    Array.from({ length: 8 }, (_, i) => ({
      id: `F${m}-${i}`,
      start: `${month}-${String(1 + ((i * 3) % 27)).padStart(2, '0')}`,
      sa2: i % 3 === 0 ? RANGES : KAIKOURA,
      dwelling: ['House', 'Flat', 'Apartment', 'Room'][i % 4],
      bedrooms: [1, 2, 3, 4, 6, null][i % 6],
      rent: 300 + 25 * i + 10 * m,
      closed: i % 5 === 0 ? `${month}-28` : null,
    })),
  );

const subset = (values: string[]) =>
  fc.subarray(values, { minLength: 1, maxLength: Math.min(4, values.length) }).map((v) => v.join(','));

export const marketRentFixture: ServiceFixture = {
  service: 'market-rent',
  otherService: 'nzbn',
  async setup() {
    const { gateway, key, get } = await marketRentGateway();
    await importInto(gateway, bonds());
    const listing = async (path: string) =>
      (await get(path)).json().items as { code: string; label: string }[];
    const definitions = (await listing('/area-definitions')).flatMap((d) => [d.code, d.label]);
    const areas = [
      ...(await listing('/area-definitions/REGC2019')),
      ...(await listing('/area-definitions/TA2019')),
    ];
    const codes = [...areas.map((a) => a.code), KAIKOURA, RANGES];
    const labels = areas.map((a) => a.label);
    const known: Record<string, Values> = {
      areaDefinition: { valid: definitions, odd: ['user-defined', 'USER-DEFINED', 'regc2019', 'ALL'] },
      'area-definition': { valid: definitions, odd: ['user-defined', 'regc2019', 'NA'] },
      'area-codes': fc.oneof(subset(codes), fc.constantFrom('ALL', '1e5', '-308900', '0308900', ',,')),
      'area-labels': fc.oneof(subset(labels), fc.constantFrom('area 0', 'ALL', 'Kaikōura', 'İ', ',')),
      'period-ending': {
        valid: ['2025-10', '2025-11', '2025-12', '2026-01', '2019-06'],
        odd: [
          '2026-00',
          '2026-13',
          '0000-01',
          '99999-01',
          '2026-1',
          '2026/01',
          '2026-01-01',
          '２０２５-０１',
        ],
      },
      'num-months': { valid: [1, 3, 6, 12, 24], odd: ['0', '25', '1.5', '-1', '1e3', ''] },
      'dwelling-type': fc.oneof(
        subset(['Apartment', 'Boarding House', 'Flat', 'House', 'Room']),
        fc.constant('Castle'),
      ),
      'num-bedrooms': fc.oneof(
        subset(['1', '2', '3', '4', '5', '5+', 'NA']),
        fc.constantFrom('0', '6', '5++'),
      ),
      'user-defined-area-mappings': fc.oneof(
        fc
          .subarray([KAIKOURA, RANGES], { minLength: 1 })
          .map((c) => c.map((code, i) => `Area ${i}(${code})`).join(',')),
        fc.constantFrom(
          'A(308900',
          'A)308900(',
          '(308900)',
          'A((308900))',
          'A(308900),',
          'A(1e5)',
          'a(308900),A(308800)',
        ),
      ),
    };
    const values = (name: string): Values | undefined => known[name];
    return { gateway, key, ids: { areaDefinition: 'REGC2019' }, values, close: () => gateway.close() };
  },
  operations: {
    'GET /statistics': {
      query: [
        'period-ending=2026-01&num-months=1&area-definition=REGC2019',
        'period-ending=2025-12&num-months=3&area-definition=SAU2019&area-codes=308900,308800&dwelling-type=House,Flat',
        'period-ending=2026-01&num-months=6&area-definition=user-defined&user-defined-area-mappings=North(308900),South(308800)&area-labels=north&include-aggregates=true',
        'period-ending=2025-11&num-months=12&area-definition=TA2019&num-bedrooms=1,2,5%2B',
      ],
    },
    'GET /area-definitions': 'public',
    'GET /area-definitions/{areaDefinition}': 'public',
    'GET /area-definition/{areaDefinition}/area-labels': 'public',
  },
};
