/**
 * The searches' SQL: offers or schemes matching criteria, new or changed in a date range, and when any
 * of a kind last changed (the searches' Last-Modified).
 */
import type { Pool } from 'pg';
import { type Slice, TABLES } from './register.ts';

export interface SearchCriteria {
  /** Name or number contains (case ignored). */
  text?: string | undefined;
  status?: string | undefined;
  productType?: string | undefined;
  /** Issuer (offers) or manager (schemes) name contains. */
  issuer?: string | undefined;
  /** Name or number, or the issuer's (manager's) name, contains (case ignored). */
  anyName?: string | undefined;
  /** Offers: of this scheme. */
  schemeNumber?: string | undefined;
}

export interface SummaryRow {
  number: string;
  name: string;
  status: string;
  kind: string;
  issuer: string;
  version: number;
  lastChanged: Date;
}

const like = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** One page of offers or schemes matching every criterion given, in number order, and how many match. */
export async function search(
  pool: Pool,
  subject: 'offer' | 'scheme',
  criteria: SearchCriteria,
  slice: Slice,
): Promise<{ total: number; rows: SummaryRow[] }> {
  const t = TABLES[subject];
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (sql: (n: string) => string, value: unknown) => {
    values.push(value);
    where.push(sql(`$${values.length}`));
  };
  if (criteria.text) add((n) => `(name ILIKE ${n} OR ${t.number} ILIKE ${n})`, like(criteria.text));
  if (criteria.status) add((n) => `lower(status) = lower(${n})`, criteria.status);
  if (criteria.productType) add((n) => `lower(${t.kind}) = lower(${n})`, criteria.productType);
  if (criteria.issuer) add((n) => `${t.issuer} ILIKE ${n}`, like(criteria.issuer));
  if (criteria.anyName)
    add(
      (n) => `(name ILIKE ${n} OR ${t.number} ILIKE ${n} OR ${t.issuer} ILIKE ${n})`,
      like(criteria.anyName),
    );
  if (criteria.schemeNumber && subject === 'offer') add((n) => `scheme_number = ${n}`, criteria.schemeNumber);
  const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  values.push(slice.limit, slice.offset);
  const result = await pool.query<SummaryRow & { total: number }>(
    `SELECT ${t.number} AS number, name, status, ${t.kind} AS kind, ${t.issuer} AS issuer, version,
            last_changed AS "lastChanged", count(*) OVER () AS total
       FROM ${t.table} ${filter}
      ORDER BY ${t.number} LIMIT $${values.length - 1} OFFSET $${values.length}`,
    values,
  );
  const total =
    result.rows[0]?.total ??
    (slice.offset > 0
      ? Number(
          (await pool.query(`SELECT count(*) AS n FROM ${t.table} ${filter}`, values.slice(0, -2))).rows[0].n,
        )
      : 0);
  return { total, rows: result.rows };
}

/** Offers or schemes whose last change falls from `from` to `to` (dates, both inclusive, New Zealand time). */
export async function newOrChanged(
  pool: Pool,
  subject: 'offer' | 'scheme',
  from: string,
  to: string,
  slice: Slice,
): Promise<{ total: number; rows: SummaryRow[] }> {
  const t = TABLES[subject];
  const range = `last_changed >= ($1::date)::timestamp AT TIME ZONE 'Pacific/Auckland'
     AND last_changed < ($2::date + 1)::timestamp AT TIME ZONE 'Pacific/Auckland'`;
  const [rows, count] = await Promise.all([
    pool.query<SummaryRow>(
      `SELECT ${t.number} AS number, name, status, ${t.kind} AS kind, ${t.issuer} AS issuer, version,
              last_changed AS "lastChanged"
         FROM ${t.table} WHERE ${range}
        ORDER BY last_changed, ${t.number} LIMIT $3 OFFSET $4`,
      [from, to, slice.limit, slice.offset],
    ),
    pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${t.table} WHERE ${range}`, [from, to]),
  ]);
  return { total: Number(count.rows[0]?.n ?? 0), rows: rows.rows };
}

/**
 * When any offer (or scheme) last changed: the searches' Last-Modified. A change that takes a record out
 * of a search's results changes this too, so a search is never "not modified" after it. With a scheme:
 * when any of its offers last changed.
 */
export async function latestChange(
  pool: Pool,
  subject: 'offer' | 'scheme',
  schemeNumber?: string,
): Promise<Date> {
  const result = await pool.query<{ at: Date }>(
    `SELECT coalesce(max(last_changed), 'epoch') AS at FROM ${TABLES[subject].table}
      WHERE $1::text IS NULL OR scheme_number = $1`,
    [schemeNumber ?? null],
  );
  return result.rows[0]!.at;
}
