import type { Pool } from 'pg';
import { readSettings } from '../../config.ts';
import { type BulkFile, bulkDataFolder, bulkFile, listBulkExports } from '../../platform/bulk-files.ts';
import { sendMail } from '../../platform/mail.ts';
import { ENVIRONMENTS, type Environment, type ServiceDefinition } from '../../services/contract.ts';
import { UUID } from '../domain/values.ts';
import { notFound } from '../errors.ts';
import type { PortalDeps } from '../index.ts';
import type { PortalUser } from '../session.ts';
import {
  approvedBulkAccess,
  type BulkAccessRow,
  bulkAccessOf,
  hasBulkAccess,
  insertBulkAccessRequest,
  markBulkAccessDecided,
  markBulkAccessRevoked,
  waitingBulkAccess,
} from '../store/bulk-access.ts';
import { signedLink } from './downloads.ts';
import { mailOperators, withUsers } from './users.ts';

/**
 * Bulk data by approval (spec part E: "bulk data files, JSON or CSV, updated monthly, available outside
 * the API by separate approval"). A user asks per environment; an operator approves or declines with a
 * reason, or revokes an approved grant; the user is mailed each time. The files are the services' own
 * (`ServiceDefinition.bulkData`): the portal lists their manifests and streams their files
 * (`platform/bulk-files.ts`), never the register's tables.
 */
export type BulkAccess = BulkAccessRow & { userEmail: string; userName: string };

/** The services that publish bulk data. */
export const bulkServices = (deps: PortalDeps): ServiceDefinition[] =>
  deps.runtime.services.filter((s) => s.bulkData);

/** A file of a month's export, with its data set's title and a download link for the user. */
export interface FileLink {
  month: string;
  title: string;
  file: BulkFile;
  href: string;
}

/** The files of every data set in the environment, as the manifests list them, with links for `userId`. */
async function fileLinks(deps: PortalDeps, environment: Environment, userId: string): Promise<FileLink[]> {
  const datasets = new Map(bulkServices(deps).map((s) => [s.bulkData!.dataset, s.bulkData!]));
  const exports = await listBulkExports(bulkDataFolder(environment));
  return exports.flatMap((manifest) => {
    const dataset = datasets.get(manifest.dataset);
    if (!dataset) return [];
    return manifest.files.map((file) => ({
      month: manifest.month,
      title: dataset.title,
      file,
      href: signedLink(deps, `/portal/bulk-data/${environment}/files/${file.file}`, userId),
    }));
  });
}

/** What the bulk data page shows the user: their access per environment and, where approved, the files. */
export async function bulkDataOf(
  deps: PortalDeps,
  userId: string,
): Promise<{ access: Map<Environment, BulkAccessRow>; files: Map<Environment, FileLink[]> }> {
  const access = await bulkAccessOf(deps.runtime.gateway.pool, userId);
  const files = new Map<Environment, FileLink[]>();
  for (const environment of ENVIRONMENTS) {
    if (access.get(environment)?.state === 'approved')
      files.set(environment, await fileLinks(deps, environment, userId));
  }
  return { access, files };
}

/** Asks for access (the operators are mailed); false when a request is waiting or access approved already. */
export async function askForBulkAccess(
  deps: PortalDeps,
  user: PortalUser,
  environment: Environment,
  purpose: string,
): Promise<boolean> {
  const added = await insertBulkAccessRequest(deps.runtime.gateway.pool, {
    userId: user.id,
    environment,
    purpose,
  });
  if (added) {
    await mailOperators(deps.mail, {
      subject: `Bulk data access request (${environment})`,
      text: `${user.name} <${user.email}> asks for ${environment} bulk data access.\n\nPurpose: ${purpose}\n\nDecide in the developer portal: /portal/operator/approvals\n`,
    });
  }
  return added;
}

/** What operators decide on: requests waiting, oldest first, and approved grants, most recent first. */
export async function bulkAccessRequests(
  pool: Pool,
): Promise<{ waiting: BulkAccess[]; approved: BulkAccess[] }> {
  return {
    waiting: await withUsers(pool, await waitingBulkAccess(pool)),
    approved: await withUsers(pool, await approvedBulkAccess(pool)),
  };
}

/** An operator approves or declines (a reason is required to decline) a waiting request; the user is mailed. */
export async function decideBulkAccess(
  deps: PortalDeps,
  operator: PortalUser,
  id: string,
  input: { decision: string; reason: string },
): Promise<void> {
  const pool = deps.runtime.gateway.pool;
  const row = UUID.test(id)
    ? await markBulkAccessDecided(pool, id, {
        state: input.decision === 'approve' ? 'approved' : 'declined',
        reason: input.reason,
        operatorId: operator.id,
      })
    : undefined;
  const decided = row && (await withUsers(pool, [row]))[0];
  if (!decided) throw notFound('No bulk data request with that id is waiting.');
  const { reason } = input;
  await sendMail(deps.mail, {
    to: decided.userEmail,
    subject: `Your ${decided.environment} bulk data access was ${decided.state}`,
    text: [
      `Hello ${decided.userName},`,
      '',
      decided.state === 'approved'
        ? `Your ${decided.environment} bulk data access is approved. The files are on the developer portal: /portal/bulk-data`
        : `Your request for ${decided.environment} bulk data access was declined.`,
      ...(reason
        ? ['', `${decided.state === 'approved' ? 'Note' : 'Reason'} from the operator: ${reason}`]
        : []),
      '',
      '— Register Services Gateway',
    ].join('\n'),
  });
}

/** An operator revokes approved access: every download link of that user stops at once; the user is mailed. */
export async function revokeBulkAccess(
  deps: PortalDeps,
  operator: PortalUser,
  id: string,
  reason: string,
): Promise<void> {
  const pool = deps.runtime.gateway.pool;
  const row = UUID.test(id)
    ? await markBulkAccessRevoked(pool, id, { reason, operatorId: operator.id })
    : undefined;
  const revoked = row && (await withUsers(pool, [row]))[0];
  if (!revoked) throw notFound('No approved bulk data access with that id.');
  await sendMail(deps.mail, {
    to: revoked.userEmail,
    subject: `Your ${revoked.environment} bulk data access was revoked`,
    text: [
      `Hello ${revoked.userName},`,
      '',
      `Your ${revoked.environment} bulk data access was revoked: the download links stop working at once.`,
      '',
      `Reason from the operator: ${reason}`,
      '',
      'You may ask again on the developer portal: /portal/bulk-data',
      '',
      '— Register Services Gateway',
    ].join('\n'),
  });
}

/** Runs each service's export for the environment now; false when another process is writing one. */
export async function exportNow(deps: PortalDeps, environment: Environment): Promise<boolean> {
  let done = true;
  for (const service of bulkServices(deps)) {
    const manifest = await service.bulkData!.exportNow({
      environment,
      database: deps.runtime.environments[environment],
      clock: deps.runtime.clocks.for(environment),
      settings: readSettings(deps.runtime.config.variables, service.settings),
    });
    if (!manifest) done = false;
  }
  return done;
}

/** A file to download for `caller`: where it is, or why not (no approved access, or the month is gone). */
export async function bulkDownload(
  deps: PortalDeps,
  environment: Environment,
  name: string,
  caller: string,
): Promise<{ file: BulkFile; path: string } | 'no-access' | 'gone'> {
  if (!UUID.test(caller) || !(await hasBulkAccess(deps.runtime.gateway.pool, caller, environment))) {
    return 'no-access';
  }
  return (await bulkFile(bulkDataFolder(environment), name)) ?? 'gone';
}
