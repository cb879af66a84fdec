import type { Caller, ServiceContext } from '../../../gateway/service-context.ts';
import { nzDate } from '../../../platform/calendar.ts';
import { activitiesOfFund } from '../domain/activities.ts';
import { FUND_NUMBER } from '../domain/records.ts';
import { complianceFunds } from '../store/compliance.ts';
import { apiBase, registerUrl } from './common.ts';

/** The organisation decides the call's permissions: authority held by the organisation itself. */
export const organisationOnly = (caller: Caller | undefined): Caller | undefined =>
  caller ? { ...caller, userId: undefined } : undefined;

export interface ActivitiesInput {
  /** The register organisation the call is made for (`x-organisation`), as named. */
  organisation: string;
  /** Who acts: the organisation's authorities over funds decide what is listed (a user's own do not). */
  caller: Caller | undefined;
}

/**
 * Last filed, upcoming and overdue compliance activities of the funds the organisation has authority
 * over. Computed from the clock (what is due or overdue today) and the organisation's authorities, of
 * which the register keeps no modification time: an answer without validators.
 */
export async function listActivities(context: ServiceContext, input: ActivitiesInput) {
  const funds = await context.identity.objectsCallerMayActOn(organisationOnly(input.caller), 'fund');
  const today = nzDate(context.clock.now().getTime());
  const rows = await complianceFunds(
    context.database.pool,
    funds.filter((f) => FUND_NUMBER.test(f)),
  );
  const base = apiBase(context);
  const activities = rows.flatMap((fund) =>
    activitiesOfFund(
      fund.fphRequired ? ['FUND_UPDATE', 'FULL_PORTFOLIO_HOLDINGS'] : ['FUND_UPDATE'],
      fund.registeredOn,
      today,
      fund.filings,
    ).map((a) => ({
      fundNumber: fund.fundNumber,
      fundName: fund.fundName,
      offerNumber: fund.offerNumber,
      activityType: a.kind,
      periodEndDate: a.periodEndDate,
      dueDate: a.dueDate,
      status: a.status,
      filedDate: a.filedDate,
      late: a.late,
      href: `${base}/offer/${fund.offerNumber}/fund/${fund.fundNumber}/${a.kind === 'FUND_UPDATE' ? 'submit-fund-compliance' : 'submit-fph-compliance'}`,
    })),
  );
  return { organisation: input.organisation, activities, registerUrl: registerUrl(context, '/funds') };
}
