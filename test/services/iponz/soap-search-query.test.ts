import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuleError } from '../../../src/platform/errors.ts';
import {
  matchesTitle,
  parseTitleQuery,
  type TitleQuery,
} from '../../../src/services/iponz/domain/title-query.ts';
import { compileTitleQuery } from '../../../src/services/iponz/store/trademark-search.ts';
import { pgServerUrl } from '../../support/runtime.ts';

/**
 * The title query language: the parser's rules (precedence, implicit AND, operators in capitals,
 * phrases, errors naming Title), the reference matcher on examples, and — property tests — the SQL the
 * store compiles a query to answers exactly as the reference matcher over random titles and queries,
 * run by PostgreSQL on temporary tables shaped as iponz_cases' folded title and the words table of
 * migration 004, the words split by that migration's own function (read from the file).
 */
const titles = (query: string, list: string[]) =>
  list.filter((title) => matchesTitle(parseTitleQuery(query), title));

describe('the parser and the reference matcher', () => {
  it('a term matches whole words, case-insensitively, * and ? within a word', () => {
    const list = ['KIWI FOODS', 'Kiwifruit Ltd', 'kiwi-fruit', 'Ki Wi', 'The Kiwi', 'kiwis', 'kawi', 'kiw'];
    expect(titles('kiwi', list)).toEqual(['KIWI FOODS', 'kiwi-fruit', 'The Kiwi']);
    expect(titles('kiw*', list)).toEqual([
      'KIWI FOODS',
      'Kiwifruit Ltd',
      'kiwi-fruit',
      'The Kiwi',
      'kiwis',
      'kiw',
    ]);
    expect(titles('k?wi', list)).toEqual(['KIWI FOODS', 'kiwi-fruit', 'The Kiwi', 'kawi']);
    expect(titles('*', ['', '!!', 'a'])).toEqual(['a']);
  });

  it('phrases are consecutive words; punctuation in a term makes a phrase', () => {
    const list = ['Kiwi Fruit', 'kiwi-fruit co', 'Fruit Kiwi', 'kiwi green fruit'];
    expect(titles('"kiwi fruit"', list)).toEqual(['Kiwi Fruit', 'kiwi-fruit co']);
    expect(titles('kiwi-fruit', list)).toEqual(['Kiwi Fruit', 'kiwi-fruit co']);
    expect(titles('"kiwi * fruit"', list)).toEqual(['kiwi green fruit']);
  });

  it('NOT binds tighter than AND, AND than OR; side by side is AND; brackets group', () => {
    const a = (text: string) => parseTitleQuery(text);
    expect(a('x OR y z')).toEqual(a('x OR (y AND z)'));
    expect(a('NOT x y')).toEqual(a('(NOT x) AND y'));
    expect(a('x OR NOT y AND z')).toEqual(a('x OR ((NOT y) AND z)'));
    expect(a('NOT NOT x')).toEqual({ op: 'not', operand: { op: 'not', operand: a('x') } });
    const list = ['fern wines', 'fern foods', 'kauri wines'];
    expect(titles('fern AND NOT wines', list)).toEqual(['fern foods']);
    expect(titles('(fern OR kauri) wines', list)).toEqual(['fern wines', 'kauri wines']);
    expect(titles('fern and wines', list)).toEqual([]); // lower-case "and" is a word to find
  });

  it.each([
    ['', /is empty/],
    ['   ', /is empty/],
    ['(kiwi', /not closed/],
    ['kiwi)', /\) without its \(/],
    ['"kiwi', /quote that is not closed/],
    ['kiwi AND', /expects a word, a phrase or \( before the end/],
    ['OR kiwi', /expects a word/],
    ['kiwi NOT', /expects a word/],
    ['()', /expects a word/],
    ['-', /without a letter, digit or wildcard/],
    ['""', /empty phrase/],
  ])('%j breaks a rule on Title', (text, rule) => {
    expect(() => parseTitleQuery(text)).toThrow(RuleError);
    try {
      parseTitleQuery(text);
    } catch (error) {
      expect((error as RuleError).field).toBe('Title');
      expect((error as RuleError).rule).toMatch(rule);
    }
  });
});

describe('the compiled SQL answers as the reference matcher (property)', () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: pgServerUrl() });
    await client.connect();
    // The migrations' own folding and word splitter (the latest that defines them), as written there, in
    // this session's own schema: the test runs what the register runs, on this server's locale.
    const migration = await readFile(
      new URL('../../../src/services/iponz/migrations/005_title_folding_unicode.sql', import.meta.url),
      'utf8',
    );
    const folded = /ADD COLUMN (title_folded [^;]*?);/.exec(migration)?.[1];
    const splitter = /CREATE (?:OR REPLACE )?FUNCTION iponz_title_words_of[\s\S]*?\$\$;/.exec(migration)?.[0];
    if (!folded || !splitter) throw new Error('migration 005 has no title_folded or iponz_title_words_of');
    await client.query(`CREATE TEMP TABLE marks (n int PRIMARY KEY, title text NOT NULL, ${folded})`);
    await client.query(
      `CREATE TEMP TABLE marks_words (word text COLLATE "C" NOT NULL, case_number int NOT NULL,
         PRIMARY KEY (word, case_number))`,
    );
    await client.query(splitter.replace('iponz_title_words_of', 'pg_temp.iponz_title_words_of'));
  });
  afterAll(async () => client?.end());

  const WORDS = [
    'kiwi',
    'KIWI',
    'kiwifruit',
    'ki',
    'fern',
    'Fern',
    'éclair',
    'ÉCLAIR',
    'a1',
    '42',
    'x',
    'ōra',
    'and',
    'not',
  ];
  const SEPARATORS = [' ', '-', ', ', ' & ', '/', '  ', "'"];
  const title = fc
    .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS)), { maxLength: 5 })
    .map((parts) => parts.map(([word, separator]) => word + separator).join(''));
  const pattern = fc
    .tuple(
      fc.constantFrom('kiwi', 'ki', 'fern', 'éclair', 'a1', '42', 'x', 'ōra', 'and'),
      fc.nat(6),
      fc.nat(3),
    )
    .map(([word, at, kind]) => {
      const i = Math.min(at, word.length);
      const mark = kind === 0 ? '*' : kind === 1 ? '?' : '';
      const cased = at % 2 ? word.toUpperCase() : word;
      return kind === 2
        ? cased.slice(0, i) + '*'
        : cased.slice(0, i) + mark + cased.slice(i + (kind === 1 ? 1 : 0));
    })
    .filter((p) => /[\p{L}\p{Nd}*?]/u.test(p));
  const query: fc.Arbitrary<string> = fc.letrec((tie) => ({
    node: fc.oneof(
      { maxDepth: 3, depthIdentifier: 'q' },
      pattern,
      fc.array(pattern, { minLength: 2, maxLength: 3 }).map((words) => `"${words.join(' ')}"`),
      fc
        .tuple(tie('node'), fc.constantFrom('AND', 'OR', ''), tie('node'))
        .map(([a, op, b]) => `(${a} ${op} ${b})`),
      tie('node').map((inner) => `NOT ${inner}`),
    ),
  })).node as fc.Arbitrary<string>;

  // A query of one word is answered from the words table, any other by regular expressions: both drawn.
  it.each([
    ['random queries (regular expressions; one word: the words table)', () => query],
    ['one-word queries (the words table)', () => pattern],
  ])(
    'over random titles and %s',
    async (_name, queries) => {
      await fc.assert(
        fc.asyncProperty(fc.array(title, { minLength: 1, maxLength: 25 }), queries(), async (list, text) => {
          let ast: TitleQuery;
          try {
            ast = parseTitleQuery(text);
          } catch (error) {
            if (error instanceof RuleError) return;
            throw error;
          }
          await client.query('TRUNCATE marks, marks_words');
          await client.query(
            'INSERT INTO marks (n, title) SELECT i, t FROM unnest($1::text[]) WITH ORDINALITY AS u(t, i)',
            [list],
          );
          await client.query(
            `INSERT INTO marks_words (word, case_number)
             SELECT w, m.n FROM marks m CROSS JOIN LATERAL pg_temp.iponz_title_words_of(m.title) AS w`,
          );
          const params: unknown[] = [];
          const sql = compileTitleQuery(ast, params, {
            title: 'm.title_folded',
            number: 'm.n',
            words: 'marks_words',
          });
          const { rows } = await client.query(`SELECT n FROM marks m WHERE ${sql} ORDER BY n`, params);
          const expected = list.flatMap((t, i) => (matchesTitle(ast, t) ? [i + 1] : []));
          expect(
            rows.map((r) => r.n),
            `${text} over ${JSON.stringify(list)}`,
          ).toEqual(expected);
        }),
        { numRuns: 300, seed: 0x7469746c },
      );
    },
    120_000,
  );
});
