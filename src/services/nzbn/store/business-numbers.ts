/**
 * The business number register as other registers of the same environment see it (the contract's
 * `BusinessNumberRegister`): an entity by its number, and the register's companies in a fixed order for
 * sandbox generators that draw organisations from it (same names and numbers); for the sandbox's
 * cross-register rules, an entity's names over time and the entities of a name.
 */

import type { Database } from '../../../platform/db/pool.ts';
import type { BusinessNumberRegister } from '../../contract.ts';
import { sortName } from '../domain/search-text.ts';

/** How many numbers or names one statement asks about. */
const BATCH = 20_000;

function* batches<T>(values: readonly T[]): Generator<T[]> {
  for (let from = 0; from < values.length; from += BATCH) yield values.slice(from, from + BATCH);
}

/** New Zealand companies (limited, unlimited, co-operative), as `domain/codes.ts` groups them. */
const COMPANY_TYPES = ['LTD', 'ULTD', 'COOP'];

export function businessNumberRegister(database: Database): BusinessNumberRegister {
  return {
    async find(nzbn) {
      const result = await database.pool.query<{
        nzbn: string;
        name: string;
        statusCode: string;
        typeCode: string;
      }>(
        `SELECT nzbn, entity_name AS name, status_code AS "statusCode", type_code AS "typeCode"
           FROM nzbn_entities WHERE nzbn = $1`,
        [nzbn],
      );
      return result.rows[0];
    },
    async companies(limit) {
      const result = await database.pool.query<{ nzbn: string; name: string }>(
        `SELECT nzbn, entity_name AS name FROM nzbn_entities
          WHERE type_code = ANY($1::text[]) AND status_code = '50'
          ORDER BY seed_index NULLS LAST, nzbn LIMIT $2`,
        [COMPANY_TYPES, limit],
      );
      return result.rows;
    },
    async namesOf(nzbns) {
      const found = new Map<string, { typeCode: string; names: string[] }>();
      for (const batch of batches([...new Set(nzbns)])) {
        const result = await database.pool.query<{ nzbn: string; typeCode: string; names: string[] }>(
          `SELECT e.nzbn, e.type_code AS "typeCode",
                  ARRAY[e.entity_name] || ARRAY(
                    SELECT h.item ->> 'entityName' FROM nzbn_entity_history h
                     WHERE h.nzbn = e.nzbn AND h.kind = 'entity-names' ORDER BY h.end_date DESC) AS names
             FROM nzbn_entities e WHERE e.nzbn = ANY($1::text[])`,
          [batch],
        );
        for (const { nzbn, ...entity } of result.rows) found.set(nzbn, entity);
      }
      return found;
    },
    async namesHeld(names) {
      const held = new Set<string>();
      for (const batch of batches([...new Set(names)])) {
        // A present name by the sort-name index; an earlier one by one pass over the name history
        // (PostgreSQL hashes a long ANY list), not a scan a name.
        const result = await database.pool.query<{ name: string }>(
          `SELECT entity_name AS name FROM nzbn_entities
            WHERE sort_name = ANY($1::text[]) AND entity_name = ANY($2::text[])
           UNION
           SELECT h.item ->> 'entityName' FROM nzbn_entity_history h
            WHERE h.kind = 'entity-names' AND h.item ->> 'entityName' = ANY($2::text[])`,
          [batch.map(sortName), batch],
        );
        for (const row of result.rows) held.add(row.name);
      }
      return held;
    },
  };
}
