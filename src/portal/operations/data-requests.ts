import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Pool } from 'pg';
import { sendMail } from '../../platform/mail.ts';
import { type DataRequestFormat, FORMATS } from '../domain/data-requests.ts';
import { formatBytes, UUID } from '../domain/values.ts';
import { conflict, notFound } from '../errors.ts';
import type { PortalDeps } from '../index.ts';
import type { PortalUser } from '../session.ts';
import {
  type DataRequestRow,
  dataRequestQueue,
  dataRequestsOf,
  findDataRequest,
  insertDataRequest,
  markDataRequestAnswered,
  markDataRequestDeclined,
} from '../store/data-requests.ts';
import { mailOperators, withUsers } from './users.ts';

/**
 * The offers register's data-request form (spec part A: one-off bulk data requests "go through a
 * separate data-request form"). A signed-in user says what data, why, in which format and whom to
 * contact; operators answer a request with a file (kept in the data folder under the request's id) or
 * decline it with a reason; the requester is mailed and downloads the file, signed in.
 */
export type DataRequest = DataRequestRow & { userEmail: string; userName: string };

/** An answer's file as uploaded: where it is now, what the browser called it, its size and SHA-256. */
export interface AnswerFile {
  temporary: string;
  fileName: string;
  contentType: string;
  bytes: number;
  sha256: string;
}

/** Where answers are kept: `RSG_DATA_REQUESTS_DIR`, else `<data folder>/data-requests`. */
export const dataRequestFolder = (deps: PortalDeps): string =>
  path.resolve(process.env.RSG_DATA_REQUESTS_DIR ?? path.join(deps.runtime.config.dataDir, 'data-requests'));

export { dataRequestsOf };

/** Open requests oldest first, then the last decided ones, with who asked. */
export async function requestQueue(pool: Pool): Promise<{ open: DataRequest[]; decided: DataRequest[] }> {
  const { open, decided } = await dataRequestQueue(pool);
  return { open: await withUsers(pool, open), decided: await withUsers(pool, decided) };
}

async function requestWithUser(pool: Pool, id: string): Promise<DataRequest | undefined> {
  const row = UUID.test(id) ? await findDataRequest(pool, id) : undefined;
  return row && (await withUsers(pool, [row]))[0];
}

/** Records the request and mails the operators. */
export async function sendDataRequest(
  deps: PortalDeps,
  user: PortalUser,
  input: { data: string; purpose: string; format: DataRequestFormat; contact: string },
): Promise<void> {
  await insertDataRequest(deps.runtime.gateway.pool, { userId: user.id, ...input });
  const { data, purpose, format, contact } = input;
  await mailOperators(deps.mail, {
    subject: 'Offers register data request',
    text: `${user.name} <${user.email}> asks for data from the offers register.\n\nData: ${data}\nPurpose: ${purpose}\nFormat: ${FORMATS[format]}\nContact: ${contact}\n\nAnswer in the developer portal: /portal/operator/data-requests\n`,
  });
}

/**
 * Answers an open request with the uploaded file: the file is moved into place under the request's id
 * and the request marked answered (once: a request decided meanwhile keeps its decision, and the file
 * is removed); the requester is mailed.
 */
export async function answerDataRequest(
  deps: PortalDeps,
  operator: PortalUser,
  id: string,
  answer: { file: AnswerFile; note: string },
): Promise<void> {
  const pool = deps.runtime.gateway.pool;
  const { file, note } = answer;
  const row = await requestWithUser(pool, id);
  if (!row) throw notFound('No data request with that id.');
  if (row.state !== 'open') throw conflict(`The request is ${row.state} already.`);
  const folder = dataRequestFolder(deps);
  await mkdir(folder, { recursive: true });
  const target = path.join(folder, id);
  await rename(file.temporary, target);
  const answered = await markDataRequestAnswered(pool, id, {
    fileName: file.fileName,
    contentType: file.contentType,
    bytes: file.bytes,
    sha256: file.sha256,
    note,
    operatorId: operator.id,
  });
  if (!answered) {
    // Decided meanwhile by another operator: their answer stands.
    await rm(target, { force: true });
    throw conflict('The request was decided meanwhile.');
  }
  await sendMail(deps.mail, {
    to: row.userEmail,
    subject: 'Your offers register data request was answered',
    text: `Hello ${row.userName},\n\nYour data request was answered with ${file.fileName} (${formatBytes(file.bytes)}, SHA-256 ${file.sha256}). Download it, signed in, from the developer portal: /portal/data-requests\n${note ? `\nNote from the operator: ${note}\n` : ''}\n— Register Services Gateway\n`,
  });
}

/** Declines an open request with a reason; the requester is mailed. */
export async function declineDataRequest(
  deps: PortalDeps,
  operator: PortalUser,
  id: string,
  reason: string,
): Promise<void> {
  const pool = deps.runtime.gateway.pool;
  const row = await requestWithUser(pool, id);
  if (!row) throw notFound('No data request with that id.');
  if (!(await markDataRequestDeclined(pool, id, { reason, operatorId: operator.id }))) {
    throw conflict(`The request is ${row.state} already.`);
  }
  await sendMail(deps.mail, {
    to: row.userEmail,
    subject: 'Your offers register data request was declined',
    text: `Hello ${row.userName},\n\nYour data request was declined.\n\nReason: ${reason}\n\n— Register Services Gateway\n`,
  });
}

/**
 * The answer's file for its requester: the request (404 for one that is not the user's or not
 * answered), where the file is and its size; `gone` when the file is no longer kept.
 */
export async function answerFileFor(
  deps: PortalDeps,
  user: PortalUser,
  id: string,
): Promise<{ row: DataRequestRow & { fileName: string }; location: string; size: number } | 'gone'> {
  const row = UUID.test(id) ? await findDataRequest(deps.runtime.gateway.pool, id) : undefined;
  if (!row || row.userId !== user.id || row.state !== 'answered' || !row.fileName) {
    throw notFound('There is no such answer.');
  }
  const location = path.join(dataRequestFolder(deps), id);
  const size = await stat(location).then(
    (found) => found.size,
    () => undefined,
  );
  return size === undefined ? 'gone' : { row: { ...row, fileName: row.fileName }, location, size };
}
