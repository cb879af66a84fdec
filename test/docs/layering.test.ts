import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layering the service template promises (src/services/README.md):
 *
 * - the list of services is imported only by the composition root (the app, the runtime and the CLI),
 *   and no module outside a service imports that service's files — a service is reached through its
 *   definition in the list;
 * - SQL runs only in a `store/` folder (and in `platform/db/`, the pools, migrations and listeners);
 * - every table has one owner, the module whose migrations create it, and only the owner's SQL names it:
 *   another module asks the owner's store or operations (billing asks identity for the paying
 *   organisation, the gateway asks identity whether a user is an operator).
 */
const SRC = join(import.meta.dirname, '..', '..', 'src');

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path, suffix);
    return entry.name.endsWith(suffix) ? [path] : [];
  });
}

/** Every module a file imports, as a path from src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)[^'"]*from '(\.[^']+)'/gm)].map((m) =>
    relative(SRC, join(file, '..', m[1]!)),
  );
}

const files = filesUnder(SRC, '.ts').map((file) => ({
  name: relative(SRC, file),
  path: file,
  imports: importsOf(file),
}));
const serviceOf = (path: string) => /^services\/([^/]+)\//.exec(path)?.[1];

/** The module a file of src/ belongs to: `services/<id>` for a register, else its first folder. */
function moduleOf(path: string): string {
  const service = serviceOf(path);
  if (service) return `services/${service}`;
  const slash = path.indexOf('/');
  return slash < 0 ? 'the composition root' : path.slice(0, slash);
}

/**
 * Table → owner: the module whose migrations (`migrations/`, `mail-migrations/` …: any folder named
 * `*migrations` holding `.sql` files) create it.
 */
function tableOwners(): Map<string, string> {
  const owners = new Map<string, string>();
  for (const file of filesUnder(SRC, '.sql')) {
    const name = relative(SRC, file);
    if (!/(^|\/)[\w-]*migrations\//.test(name)) continue;
    const sql = readFileSync(file, 'utf8').replace(/--.*$/gm, '');
    for (const match of sql.matchAll(/\bCREATE\s+(?:UNLOGGED\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)/gi)) {
      const table = match[1]!.toLowerCase();
      const owner = moduleOf(name);
      const known = owners.get(table);
      if (known && known !== owner) throw new Error(`${table} is created by ${known} and by ${owner}`);
      owners.set(table, owner);
    }
  }
  return owners;
}

/** What a source file holds of SQL, read by the TypeScript parser: comments are never read. */
interface SqlFacts {
  /** A statement in a literal, a `.query(…)` call, or a COPY stream: the file runs SQL. */
  runsSql: boolean;
  /** Every table a literal of the file names after FROM, JOIN, INTO, UPDATE, TABLE, TRUNCATE or COPY. */
  tables: Set<string>;
}

/**
 * A literal is SQL when it starts as a statement does (upper-case keywords, as every query here is
 * written), or holds a clause no prose holds: `WHERE col =`, `JOIN t x ON`, `ORDER BY col`,
 * `RETURNING col`, `ON CONFLICT`.
 */
const STATEMENT =
  /^[\s(]*(?:SELECT\s|INSERT\s+INTO\s|UPDATE\s+\w+(?:\s+\w+)?\s+SET\s|DELETE\s+FROM\s|WITH\s+(?:RECURSIVE\s+)?\w+(?:\s*\([^)]*\))?\s+AS\s|COPY\s|TRUNCATE\s|CREATE\s|ALTER\s|DROP\s|LOCK\s+TABLE\s|LISTEN\s|NOTIFY\s|VACUUM\b|ANALYZE\b|BEGIN\b|COMMIT\b|ROLLBACK\b|SET\s+(?:LOCAL\s+)?\w+\s*(?:=|TO\s))/;
const CLAUSE =
  /\b(?:WHERE|AND|OR)\s+[a-z_][\w.]*\s*(?:=|<>|<=|>=|<|>|IS\s|IN\s*\(|LIKE\s|ILIKE\s|BETWEEN\s|@@)|\bJOIN\s+[a-z_]\w*(?:\s+[a-z_]\w*)?\s+(?:ON|USING)\b|\bORDER\s+BY\s+[a-z_]|\bRETURNING\s+[a-z_*]|\bON\s+CONFLICT\b|\bGROUP\s+BY\s+[a-z_]/;
const TABLE_REFERENCE =
  /\b(?:FROM|JOIN|INTO|UPDATE|TABLE|TRUNCATE|COPY)\s+(?:ONLY\s+)?(?:IF\s+(?:NOT\s+)?EXISTS\s+)?([a-z_][a-z0-9_]*)((?:\s+(?:AS\s+)?[a-z_]\w*)?(?:\s*,\s*[a-z_][a-z0-9_]*(?:\s+(?:AS\s+)?[a-z_]\w*)?)*)/g;
const SQL_RUNNERS = new Set(['pg-copy-streams', 'pg-cursor', 'pg-query-stream']);

function sqlFacts(fileName: string, text: string): SqlFacts {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const facts: SqlFacts = { runsSql: false, tables: new Set() };
  const literal = (value: string) => {
    if (STATEMENT.test(value) || CLAUSE.test(value)) facts.runsSql = true;
    for (const match of value.matchAll(TABLE_REFERENCE)) {
      facts.tables.add(match[1]!);
      for (const listed of match[2]!.matchAll(/,\s*([a-z_][a-z0-9_]*)/g)) facts.tables.add(listed[1]!);
    }
  };
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) literal(node.text);
    else if (ts.isTemplateExpression(node)) {
      // The substitutions stand for a value or a fragment (its own literal, read where it is written).
      literal([node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' $_ '));
    } else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'query'
    ) {
      facts.runsSql = true;
    } else if (
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      SQL_RUNNERS.has(node.moduleSpecifier.text)
    ) {
      facts.runsSql = true;
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return facts;
}

/** The layering's exemption: the database plumbing itself (pools, migrations, LISTEN/NOTIFY, COPY). */
const PLATFORM_DB = 'platform/db/';

/**
 * Files that still break the SQL rules, with what each breaks: SQL outside a `store/` folder, or a
 * table of another module named. Each of these is to move onto the template (its SQL into its module's
 * store, another module's table reached through that module's functions) and leave this list, which
 * may only shrink: the test fails when a listed file no longer breaks what it is listed for, as well
 * as when a file not listed breaks a rule. Every module breaks none: the list is empty, and stays so.
 */
const NOT_YET_ON_THE_TEMPLATE: Record<string, readonly string[]> = {};

/** What a file breaks, in the words of the list above. */
function breaches(): Record<string, string[]> {
  const owners = tableOwners();
  const found: Record<string, string[]> = {};
  for (const file of files) {
    if (file.name.startsWith(PLATFORM_DB)) continue;
    const facts = sqlFacts(file.name, readFileSync(file.path, 'utf8'));
    const broken: string[] = [];
    if (facts.runsSql && !/(^|\/)store\//.test(file.name)) broken.push('SQL outside a store');
    const module = moduleOf(file.name);
    for (const table of [...facts.tables].sort()) {
      const owner = owners.get(table);
      if (owner && owner !== module) broken.push(`names ${table} (${owner})`);
    }
    if (broken.length > 0) found[file.name] = broken;
  }
  return found;
}

describe('layering', () => {
  it('only the composition root imports the list of services', () => {
    const importers = files.filter((f) => f.imports.includes('services/registry.ts')).map((f) => f.name);
    expect(
      importers.filter((name) => !['app.ts', 'runtime.ts'].includes(name) && !name.startsWith('cli/')),
    ).toEqual([]);
    expect(importers.length).toBeGreaterThan(0);
  });

  it("no module outside a service imports that service's files", () => {
    const crossings = files.flatMap((file) =>
      file.imports
        .filter((target) => {
          const owner = serviceOf(target);
          return (
            owner !== undefined && owner !== serviceOf(file.name) && file.name !== 'services/registry.ts'
          );
        })
        .map((target) => `${file.name} → ${target}`),
    );
    expect(crossings).toEqual([]);
  });

  it('SQL runs only in stores, and names only the tables of its own module', () => {
    expect(breaches()).toEqual(NOT_YET_ON_THE_TEMPLATE);
  });

  it('every module is on the template', () => {
    expect(Object.keys(NOT_YET_ON_THE_TEMPLATE)).toEqual([]);
  });
});

describe('the SQL detector', () => {
  const facts = (text: string) => {
    const found = sqlFacts('example.ts', text);
    return { runsSql: found.runsSql, tables: [...found.tables].sort() };
  };

  it('finds statements in strings and templates, and every query call', () => {
    expect(facts("const q = 'SELECT id FROM users WHERE id = $1';")).toEqual({
      runsSql: true,
      tables: ['users'],
    });
    expect(facts(`const q = \`\n  INSERT INTO memberships (a) VALUES ($1) RETURNING \${COLUMNS}\`;`)).toEqual(
      {
        runsSql: true,
        tables: ['memberships'],
      },
    );
    expect(facts('await pool.query(sql, [1]);')).toEqual({ runsSql: true, tables: [] });
    expect(facts('await client.query<Row>(statement);')).toEqual({ runsSql: true, tables: [] });
    expect(facts("import { from } from 'pg-copy-streams';")).toEqual({ runsSql: true, tables: [] });
    expect(facts("const q = 'WITH gone AS (DELETE FROM a RETURNING id) SELECT count(*) FROM gone';")).toEqual(
      { runsSql: true, tables: ['a', 'gone'] },
    );
    expect(facts("const q = 'UPDATE organisations o SET name = $2';").runsSql).toBe(true);
  });

  it('finds fragments of a composed statement and the tables they name', () => {
    expect(facts("const FROM = 'authorities a LEFT JOIN users u ON u.id = a.user_id';")).toEqual({
      runsSql: true,
      tables: ['users'],
    });
    expect(facts("const where = ' AND o.environment = $2';").runsSql).toBe(true);
    expect(facts("const q = 'FROM fee_records f, invoices i WHERE f.id = i.id';").tables).toEqual([
      'fee_records',
      'invoices',
    ]);
  });

  it('is not fooled by comments, prose or regular expressions', () => {
    expect(
      facts(
        [
          '// SELECT password_hash FROM users WHERE id = $1',
          '/** e.g. `SELECT rent, count(*) FROM market_rent_bonds … GROUP BY rent` */',
          "const message = 'Select a product from the list, then join users on the portal';",
          'const pattern = /SELECT .* FROM users/;',
          "const help = 'rsg users set-password --email E';",
          'const query = request.query;',
        ].join('\n'),
      ),
    ).toEqual({ runsSql: false, tables: [] });
  });
});
