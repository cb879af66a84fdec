/**
 * Clients: the search of GET /clients (domain/client-search.ts's pattern, case-folded and run with LIKE on
 * the folded name and on each address's folded joined text, both served by trigram GIN indexes), one
 * client by id, and the writes the sandbox seed makes. Folding is `toLowerCase()`, as the domain's
 * reference matcher folds (`fold`).
 */
import type pg from 'pg';
import { ADDRESS_TYPES, addressText, type ClientQuery, fold, likePattern } from '../domain/client-search.ts';
import type { Client } from '../domain/model.ts';

type Queryable = pg.Pool | pg.PoolClient;

interface ClientRow {
  client_id: number;
  name: string;
  client_type: 'Organisation' | 'Person';
  nzbn: string | null;
  addresses:
    | {
        type: string;
        line1: string | null;
        line2: string | null;
        line3: string | null;
        city: string | null;
        postcode: string | null;
        countryCode: string;
      }[]
    | null;
}

const SELECT_CLIENT = `
  SELECT c.client_id, c.name, c.client_type, c.nzbn,
    (SELECT json_agg(json_build_object('type', a.address_type, 'line1', a.line1, 'line2', a.line2,
       'line3', a.line3, 'city', a.city, 'postcode', a.postcode, 'countryCode', a.country_code)
       ORDER BY a.address_type)
     FROM iponz_client_addresses a WHERE a.client_id = c.client_id) AS addresses
  FROM iponz_clients c`;

function clientOf(row: ClientRow): Client {
  const addresses: Client['addresses'] = {};
  for (const a of row.addresses ?? []) {
    const type = ADDRESS_TYPES.find((t) => t === a.type);
    if (type)
      addresses[type] = {
        line1: a.line1,
        line2: a.line2,
        line3: a.line3,
        city: a.city,
        postcode: a.postcode,
        countryCode: a.countryCode,
      };
  }
  return { clientId: row.client_id, name: row.name, clientType: row.client_type, nzbn: row.nzbn, addresses };
}

export interface ClientPage {
  items: Client[];
  /** Clients matching in all. */
  total: number;
}

/**
 * The clients whose name contains the name term (and, with an address term, one of whose addresses
 * contains it), by name then id, one page.
 */
export async function searchClients(
  pool: Queryable,
  query: ClientQuery,
  page: { offset: number; limit: number },
): Promise<ClientPage> {
  const params: unknown[] = [likePattern(fold(query.name))];
  let where = `c.name_folded LIKE $1 ESCAPE '\\'`;
  if (query.address !== null) {
    params.push(likePattern(fold(query.address)));
    // Tested on the client row the name's trigram index led to: its addresses' folded texts (migration
    // 006), one at a time, with no lookup per client.
    where += ` AND EXISTS (SELECT 1 FROM unnest(c.addresses_folded) AS t WHERE t LIKE $2 ESCAPE '\\')`;
  }
  const n = params.length;
  const { rows } = await pool.query<ClientRow & { total: string }>(
    `WITH matched AS (SELECT c.client_id, c.name FROM iponz_clients c WHERE ${where}),
       counted AS (SELECT count(*) AS total FROM matched),
       paged AS (SELECT client_id FROM matched ORDER BY name, client_id OFFSET $${n + 1} LIMIT $${n + 2})
     SELECT x.*, counted.total FROM counted LEFT JOIN LATERAL (
       ${SELECT_CLIENT} WHERE c.client_id IN (SELECT client_id FROM paged)) x ON true
     ORDER BY x.name, x.client_id`,
    [...params, page.offset, page.limit],
  );
  const total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  return { total, items: rows.filter((row) => row.client_id !== null).map(clientOf) };
}

/** The same search, written the straightforward way (no index can serve it): the benchmark's baseline. */
export async function searchClientsPlainIlike(
  pool: Queryable,
  query: ClientQuery,
  limit: number,
): Promise<number[]> {
  const { rows } = await pool.query<{ client_id: number }>(
    `SELECT c.client_id FROM iponz_clients c
     WHERE lower(c.name) LIKE lower($1) ESCAPE '\\'
       AND ($2::text IS NULL OR EXISTS (SELECT 1 FROM iponz_client_addresses a WHERE a.client_id = c.client_id
         AND (lower(coalesce(a.line1, '') || ', ' || coalesce(a.line2, '') || ', ' || coalesce(a.line3, '')
           || ', ' || coalesce(a.city, '')) LIKE lower($2) ESCAPE '\\')))
     ORDER BY c.name, c.client_id LIMIT $3`,
    [likePattern(query.name), query.address === null ? null : likePattern(query.address), limit],
  );
  return rows.map((row) => row.client_id);
}

export async function findClient(pool: Queryable, clientId: number): Promise<Client | null> {
  const { rows } = await pool.query<ClientRow>(`${SELECT_CLIENT} WHERE c.client_id = $1`, [clientId]);
  return rows[0] ? clientOf(rows[0]) : null;
}

/** Clients after `after` (a client id), by id: a page of an export. */
export async function clientsAfter(db: Queryable, after: number, limit: number): Promise<Client[]> {
  const { rows } = await db.query<ClientRow>(
    `${SELECT_CLIENT} WHERE c.client_id > $1 ORDER BY c.client_id LIMIT $2`,
    [after, limit],
  );
  return rows.map(clientOf);
}

/** The clients of these ids that the register holds. */
export async function clientsNamed(db: Queryable, ids: readonly number[]): Promise<Client[]> {
  const { rows } = await db.query<ClientRow>(`${SELECT_CLIENT} WHERE c.client_id = ANY($1::int[])`, [ids]);
  return rows.map(clientOf);
}

/** Inserts clients with their addresses (the seed; `tx` is the caller's transaction). */
export async function insertClients(tx: pg.PoolClient, clients: readonly Client[], at: Date): Promise<void> {
  if (clients.length === 0) return;
  await tx.query(
    `INSERT INTO iponz_clients (client_id, name, name_folded, client_type, nzbn, updated_at)
     SELECT t.*, $6::timestamptz FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[]) AS t`,
    [
      clients.map((c) => c.clientId),
      clients.map((c) => c.name),
      clients.map((c) => fold(c.name)),
      clients.map((c) => c.clientType),
      clients.map((c) => c.nzbn),
      at,
    ],
  );
  await insertAddresses(tx, clients);
}

/** Clients the register holds set to these (name, type, business number, addresses), in `tx`. */
export async function replaceClients(tx: pg.PoolClient, clients: readonly Client[], at: Date): Promise<void> {
  if (clients.length === 0) return;
  await tx.query(
    `UPDATE iponz_clients c SET name = t.name, name_folded = t.folded, client_type = t.type, nzbn = t.nzbn,
       updated_at = $6
     FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[]) AS t(id, name, folded, type, nzbn)
     WHERE c.client_id = t.id`,
    [
      clients.map((c) => c.clientId),
      clients.map((c) => c.name),
      clients.map((c) => fold(c.name)),
      clients.map((c) => c.clientType),
      clients.map((c) => c.nzbn),
      at,
    ],
  );
  await tx.query('DELETE FROM iponz_client_addresses WHERE client_id = ANY($1::int[])', [
    clients.map((c) => c.clientId),
  ]);
  await insertAddresses(tx, clients);
}

async function insertAddresses(tx: pg.PoolClient, clients: readonly Client[]): Promise<void> {
  const rows = clients.flatMap((c) =>
    ADDRESS_TYPES.flatMap((type) => {
      const a = c.addresses[type];
      return a ? [{ id: c.clientId, type, a }] : [];
    }),
  );
  await tx.query(
    `INSERT INTO iponz_client_addresses
       (client_id, address_type, line1, line2, line3, city, search_text, postcode, country_code)
     SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
       $8::text[], $9::text[])`,
    [
      rows.map((r) => r.id),
      rows.map((r) => r.type),
      rows.map((r) => r.a.line1 ?? null),
      rows.map((r) => r.a.line2 ?? null),
      rows.map((r) => r.a.line3 ?? null),
      rows.map((r) => r.a.city ?? null),
      rows.map((r) => fold(addressText(r.a))),
      rows.map((r) => r.a.postcode ?? null),
      rows.map((r) => r.a.countryCode ?? 'NZ'),
    ],
  );
}
