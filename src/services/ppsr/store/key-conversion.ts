/**
 * Brings what the register keeps under the current server key, when the service starts in a process
 * (routes/index.ts): PIN verifiers of the old unkeyed form or of a previous key are wrapped with the
 * current key (domain/pin-verifiers.ts: no PIN needed), and kept answers in clear or sealed with a
 * previous key are sealed with the current one. The SQL migration 004 cannot: the secret is not in the
 * database. Batches in key order, each one statement (a batch is converted whole or not at all); a row
 * is written only if it is still as it was read, so processes starting together, and a PIN rehashed
 * meanwhile, never clash. Converted rows are not read again: a second run finds nothing to do.
 */
import type pg from 'pg';
import type { ServerKeys } from '../../../platform/server-keys.ts';
import { NO_PIN, type PinVerifier, wrappedVerifier } from '../domain/pin-verifiers.ts';
import { answerBinding, openAnswer, sealAnswer } from '../domain/sealed-answers.ts';

type Client = Pick<pg.Pool, 'query'>;
const BATCH = 1000;

export interface Conversion {
  verifiers: number;
  /**
   * Of those, the statements whose verifiers were under a previous key (the secret rotated); the others
   * were in the unkeyed form a sandbox seed writes (its template serves every installation) or an older
   * version of the register wrote.
   */
  underPreviousKeys: number;
  answers: number;
  /** Kept answers sealed with a key that is no longer configured: left as they are (they cannot be opened). */
  unopenable: number;
}

/** `column` (pin or debtor_pin) needs wrapping: the old form, or an outer key that is not the current. */
const needsWrap = (column: string) =>
  `(${column}_key_ids IS NULL OR (${column}_key_ids <> '${NO_PIN}' AND split_part(${column}_key_ids, ' ', 1) <> $1))`;

async function convertVerifiers(
  client: Client,
  keys: ServerKeys,
): Promise<Pick<Conversion, 'verifiers' | 'underPreviousKeys'>> {
  let after = '';
  let converted = 0;
  let underPreviousKeys = 0;
  for (;;) {
    const batch = await client.query<{
      registration_number: string;
      pin_hash: Buffer;
      pin_key_ids: string | null;
      debtor_pin_hash: Buffer;
      debtor_pin_key_ids: string | null;
    }>(
      `SELECT registration_number, pin_hash, pin_key_ids, debtor_pin_hash, debtor_pin_key_ids
         FROM ppsr_financing_statements
        WHERE registration_number > $2 AND (${needsWrap('pin')} OR ${needsWrap('debtor_pin')})
        ORDER BY registration_number LIMIT ${BATCH}`,
      [keys.current.id, after],
    );
    if (batch.rows.length === 0) return { verifiers: converted, underPreviousKeys };
    after = batch.rows.at(-1)!.registration_number;
    const kept = (v: PinVerifier) => wrappedVerifier(keys, v) ?? v;
    const rows = batch.rows.map((row) => ({
      number: row.registration_number,
      from: [row.pin_key_ids, row.debtor_pin_key_ids],
      pin: kept({ hash: row.pin_hash, keyIds: row.pin_key_ids }),
      debtor: kept({ hash: row.debtor_pin_hash, keyIds: row.debtor_pin_key_ids }),
    }));
    const updated = await client.query(
      `UPDATE ppsr_financing_statements s
          SET pin_hash = v.pin_hash, pin_key_ids = v.pin_key_ids,
              debtor_pin_hash = v.debtor_pin_hash, debtor_pin_key_ids = v.debtor_pin_key_ids
         FROM unnest($1::text[], $2::text[], $3::text[], $4::bytea[], $5::text[], $6::bytea[], $7::text[])
              AS v (registration_number, old_pin_key_ids, old_debtor_pin_key_ids, pin_hash, pin_key_ids,
                    debtor_pin_hash, debtor_pin_key_ids)
        WHERE s.registration_number = v.registration_number
          AND s.pin_key_ids IS NOT DISTINCT FROM v.old_pin_key_ids
          AND s.debtor_pin_key_ids IS NOT DISTINCT FROM v.old_debtor_pin_key_ids
       RETURNING coalesce(v.old_pin_key_ids, '${NO_PIN}') <> '${NO_PIN}'
              OR coalesce(v.old_debtor_pin_key_ids, '${NO_PIN}') <> '${NO_PIN}' AS keyed`,
      [
        rows.map((r) => r.number),
        rows.map((r) => r.from[0]),
        rows.map((r) => r.from[1]),
        rows.map((r) => r.pin.hash),
        rows.map((r) => r.pin.keyIds),
        rows.map((r) => r.debtor.hash),
        rows.map((r) => r.debtor.keyIds),
      ],
    );
    converted += updated.rowCount ?? 0;
    underPreviousKeys += (updated.rows as { keyed: boolean }[]).filter((row) => row.keyed).length;
  }
}

async function convertAnswers(
  client: Client,
  keys: ServerKeys,
): Promise<Pick<Conversion, 'answers' | 'unopenable'>> {
  let after = 0;
  let answers = 0;
  let unopenable = 0;
  for (;;) {
    const batch = await client.query<{
      id: number;
      organisation_id: string;
      request_id: string;
      response: string | null;
      response_sealed: Buffer | null;
      response_key_id: string | null;
    }>(
      `SELECT id::int AS id, organisation_id, request_id, response::text AS response, response_sealed,
              response_key_id
         FROM ppsr_transactions
        WHERE id > $2 AND (response IS NOT NULL OR response_key_id <> $1)
        ORDER BY id LIMIT ${BATCH}`,
      [keys.current.id, after],
    );
    if (batch.rows.length === 0) return { answers, unopenable };
    after = batch.rows.at(-1)!.id;
    const rows = [];
    for (const row of batch.rows) {
      const binding = answerBinding(row.organisation_id, row.request_id);
      let text = row.response;
      if (text === null) {
        if (!keys.find(row.response_key_id!)) {
          unopenable++;
          continue;
        }
        text = openAnswer(keys, { keyId: row.response_key_id!, sealed: row.response_sealed! }, binding);
      }
      rows.push({ id: row.id, from: row.response_key_id, answer: sealAnswer(keys, text, binding) });
    }
    if (rows.length === 0) continue;
    const updated = await client.query(
      `UPDATE ppsr_transactions t
          SET response = NULL, response_sealed = v.sealed, response_key_id = v.key_id
         FROM unnest($1::bigint[], $2::text[], $3::bytea[], $4::text[]) AS v (id, old_key_id, sealed, key_id)
        WHERE t.id = v.id AND t.response_key_id IS NOT DISTINCT FROM v.old_key_id`,
      [
        rows.map((r) => r.id),
        rows.map((r) => r.from),
        rows.map((r) => r.answer.sealed),
        rows.map((r) => r.answer.keyId),
      ],
    );
    answers += updated.rowCount ?? 0;
  }
}

/** Converts every verifier and kept answer not yet under the current key; says how many. */
export async function convertToCurrentKey(client: Client, keys: ServerKeys): Promise<Conversion> {
  const verifiers = await convertVerifiers(client, keys);
  return { ...verifiers, ...(await convertAnswers(client, keys)) };
}

/** Ids of the server keys verifiers and kept answers still name (when a previous key may be dropped). */
export async function serverKeysInUse(client: Client): Promise<Map<string, number>> {
  const result = await client.query<{ id: string; uses: number }>(
    `SELECT id, count(*)::int AS uses FROM (
       SELECT unnest(string_to_array(pin_key_ids, ' ')) AS id FROM ppsr_financing_statements
        WHERE pin_key_ids IS NOT NULL AND pin_key_ids <> '${NO_PIN}'
       UNION ALL
       SELECT unnest(string_to_array(debtor_pin_key_ids, ' ')) FROM ppsr_financing_statements
        WHERE debtor_pin_key_ids IS NOT NULL AND debtor_pin_key_ids <> '${NO_PIN}'
       UNION ALL
       SELECT response_key_id FROM ppsr_transactions WHERE response_key_id IS NOT NULL) AS named
     GROUP BY id ORDER BY id`,
  );
  return new Map(result.rows.map((row) => [row.id, row.uses]));
}
