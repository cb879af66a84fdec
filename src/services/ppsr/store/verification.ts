/**
 * Verification statements: written in the change's transaction, mailed by the service's job
 * (jobs/index.ts), which claims unsent ones so two processes never mail one twice.
 */
import type pg from 'pg';
import { withTransaction } from '../../../platform/db/pool.ts';
import type { Change } from './statements.ts';

type Client = Pick<pg.PoolClient, 'query'>;

export interface VerificationStatement {
  registrationNumber: string;
  version: number;
  change: Change;
  to: string;
  subject: string;
  text: string;
}

export async function queueVerificationStatements(
  client: Client,
  statements: readonly VerificationStatement[],
  now: Date,
): Promise<void> {
  if (statements.length === 0) return;
  await client.query(
    `INSERT INTO ppsr_verification_statements (registration_number, version, change, "to", subject, text, created_at)
     SELECT * , $7::timestamptz FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[])`,
    [
      statements.map((s) => s.registrationNumber),
      statements.map((s) => s.version),
      statements.map((s) => s.change),
      statements.map((s) => s.to),
      statements.map((s) => s.subject),
      statements.map((s) => s.text),
      now,
    ],
  );
}

/**
 * Mails up to `limit` unsent statements with `send`, each marked sent in the same transaction as its
 * claim (SKIP LOCKED: another process takes the others). Returns how many were sent.
 */
export async function sendPending(
  pool: pg.Pool,
  limit: number,
  send: (statement: VerificationStatement) => Promise<void>,
  now: () => Date,
): Promise<number> {
  return withTransaction(pool, async (client) => {
    const claimed = await client.query<VerificationStatement & { id: string }>(
      `SELECT id, registration_number AS "registrationNumber", version, change, "to", subject, text
         FROM ppsr_verification_statements WHERE sent_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    for (const statement of claimed.rows) {
      await send(statement);
      await client.query('UPDATE ppsr_verification_statements SET sent_at = $2 WHERE id = $1', [
        statement.id,
        now(),
      ]);
    }
    return claimed.rows.length;
  });
}

export type KeptVerificationStatement = VerificationStatement & {
  id: string;
  createdAt: Date;
  sentAt: Date | null;
};

/** A statement's verification statements, oldest first. */
export async function listVerificationStatements(
  client: Client,
  registrationNumber: string,
): Promise<KeptVerificationStatement[]> {
  const result = await client.query<KeptVerificationStatement>(
    `SELECT id::text, registration_number AS "registrationNumber", version, change, "to", subject, text,
            created_at AS "createdAt", sent_at AS "sentAt"
       FROM ppsr_verification_statements WHERE registration_number = $1 ORDER BY id`,
    [registrationNumber],
  );
  return result.rows;
}
