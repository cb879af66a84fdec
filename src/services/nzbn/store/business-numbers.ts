/**
 * The business number register as other registers of the same environment see it (the contract's
 * `BusinessNumberRegister`): an entity by its number, and the register's companies in a fixed order for
 * sandbox generators that draw organisations from it (same names and numbers).
 */

import type { Database } from '../../../platform/db/pool.ts';
import type { BusinessNumberRegister } from '../../contract.ts';

/** New Zealand companies (limited, unlimited, co-operative), as `domain/codes.ts` groups them. */
const COMPANY_TYPES = ['LTD', 'ULTD', 'COOP'];

export function businessNumberRegister(database: Database): BusinessNumberRegister {
  return {
    async find(nzbn) {
      const result = await database.pool.query<{ nzbn: string; name: string; statusCode: string }>(
        `SELECT nzbn, entity_name AS name, status_code AS "statusCode" FROM nzbn_entities WHERE nzbn = $1`,
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
  };
}
