/**
 * The business number register as other registers of the same environment see it (the contract's
 * `BusinessNumberRegister`): an entity by its number, and the register's companies in a fixed order for
 * sandbox generators that draw organisations from it (same names and numbers); for the sandbox's
 * cross-register rules, an entity's names over time and the entities of a name.
 */

import type { Database } from '../../../platform/db/pool.ts';
import type { BusinessNumberRegister } from '../../contract.ts';
import { sortName } from '../domain/search-text.ts';

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
    async names(nzbn) {
      const result = await database.pool.query<{ name: string }>(
        `SELECT entity_name AS name FROM (
           SELECT entity_name, 0 AS place, NULL::timestamptz AS ended FROM nzbn_entities WHERE nzbn = $1
           UNION ALL
           SELECT h.item ->> 'entityName', 1, h.end_date FROM nzbn_entity_history h
            WHERE h.nzbn = $1 AND h.kind = 'entity-names' AND EXISTS (SELECT 1 FROM nzbn_entities WHERE nzbn = $1)
         ) names ORDER BY place, ended DESC`,
        [nzbn],
      );
      return result.rows.map((row) => row.name);
    },
    async named(name) {
      const result = await database.pool.query<{ nzbn: string; name: string }>(
        `SELECT nzbn, entity_name AS name FROM nzbn_entities WHERE sort_name = $1 AND entity_name = $2
         UNION
         SELECT h.nzbn, e.entity_name FROM nzbn_entity_history h JOIN nzbn_entities e USING (nzbn)
          WHERE h.kind = 'entity-names' AND h.item ->> 'entityName' = $2
         ORDER BY nzbn`,
        [sortName(name), name],
      );
      return result.rows;
    },
  };
}
