/**
 * What the sandbox's invariants (sandbox/invariants.ts) read of the register: its generated and fixed
 * entities a page at a time, with the columns beside each document and the ended names of their name
 * history. The rules themselves are judged on the documents (the generator makes again those the seed
 * did not store: the caller's `DocumentSource`). Reads only.
 */
import type pg from 'pg';

type Pool = Pick<pg.Pool, 'query'>;

export interface EntityToCheck {
  nzbn: string;
  seedIndex: number | null;
  origin: 'generated' | 'fixture' | 'registered';
  statusCode: string;
  typeCode: string;
  sourceRegisterUniqueId: string | null;
  /** The stored document; null: the generated one, unchanged since the seed. */
  document: string | null;
  /** The entity's ended names, oldest first: each name with its period. */
  endedNames: { name: string; startDate: string | null; endDate: string }[];
}

/**
 * Up to `limit` generated and fixed entities, and those the simulated activity registered, after
 * business number `after` (in number order), with their ended names. Entities registered through the
 * API are the sandbox users' own, and left out.
 */
export async function entitiesToCheck(pool: Pool, after: string, limit: number): Promise<EntityToCheck[]> {
  const { rows } = await pool.query<EntityToCheck>(
    `SELECT e.nzbn, e.seed_index AS "seedIndex", e.origin, e.status_code AS "statusCode", e.type_code AS "typeCode",
            e.source_register_unique_id AS "sourceRegisterUniqueId", e.document::text AS document,
            coalesce((SELECT json_agg(json_build_object('name', h.item ->> 'entityName',
                                                       'startDate', h.item ->> 'startDate',
                                                       'endDate', h.item ->> 'endDate') ORDER BY h.end_date, h.id)
                        FROM nzbn_entity_history h WHERE h.nzbn = e.nzbn AND h.kind = 'entity-names'), '[]') AS "endedNames"
       FROM nzbn_entities e
      WHERE (e.origin IN ('generated', 'fixture')
             OR EXISTS (SELECT 1 FROM nzbn_sandbox_activity_entities s WHERE s.nzbn = e.nzbn))
        AND e.nzbn > $1
      ORDER BY e.nzbn LIMIT $2`,
    [after, limit],
  );
  return rows;
}

/** How many entities the register holds (the check's choice of how to judge them). */
export async function entityCount(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ count: number }>('SELECT count(*)::int AS count FROM nzbn_entities');
  return rows[0]!.count;
}
