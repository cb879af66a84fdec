/**
 * `ServiceContext.fees`: what a register asks of billing, bound to its environment and service. A
 * fee-bearing operation may first call `requireAuthority` (refused before it runs, nothing written),
 * then calls `charge(tx, …)` inside its own transaction, so the fee exists exactly when the operation
 * committed; `list` reads an organisation's fees back (a register's own fee operation, e.g. SEC_43).
 *
 * Who pays (the payer rule, also in the README): the organisation the call is made for (`x-organisation`,
 * resolved by the gateway) when there is one; otherwise an organisation of the acting user (the
 * three-legged token's user, else the subscriber) in this environment. Of several: in production the
 * ones holding an approved direct debit authority come first; then by role (owner, admin, member), then
 * the oldest membership. None: in production 403 `billing-organisation-required`; in the sandbox (where
 * fees and authorities are dummies) the user's personal sandbox organisation, which identity finds or
 * makes on first need with the user as its only owner (`personalSandboxOrganisation`: tied to the user,
 * with a random identifier, so nobody can make it first and be joined by the user). Billing never names
 * identity's tables: the memberships and organisations are read, and made, through identity's functions.
 *
 * Direct credit (a register whose rules accept it, `directCredit`): a paying organisation with a direct
 * credit account pays each fee and its GST from its prepaid balance, taken in the operation's transaction;
 * a balance short of it is refused (402 `direct-credit-insufficient`, the operation rolled back, nothing
 * written), never passed on to a direct debit. An organisation without an account pays by direct debit
 * as before. A register that does not accept direct credit (the secured interests register) ignores the
 * account: it needs the direct debit authority in production whatever the balance.
 */
import type pg from 'pg';
import { personalSandboxOrganisation } from '../identity/operations/organisations.ts';
import { organisationIdsByRole } from '../identity/store/memberships.ts';
import type { Clock } from '../platform/clock.ts';
import { RuleError } from '../platform/errors.ts';
import type { Environment } from '../services/contract.ts';
import { type Channel, type FeeSchedule, type Quote, quote } from './domain/fee-schedule.ts';
import { periodOf } from './domain/invoice-month.ts';
import { BILLING_ERRORS, DIRECT_CREDIT_ERRORS } from './errors.ts';
import { approvedAuthorityHolders, holdsApprovedAuthority } from './store/authorities.ts';
import {
  findDirectCreditAccount,
  recordDirectCreditCharge,
  takeDirectCredit,
} from './store/direct-credit.ts';
import {
  type FeeRecordPage,
  type FeeRecordQuery,
  insertFeeRecord,
  listFeeRecords,
  redateFeeRecord,
} from './store/fee-records.ts';
import type { PayerCache } from './store/payer-cache.ts';

/** The part of the gateway's `Caller` that billing reads. */
export interface FeeCaller {
  subscriptionId: string;
  subscriberId: string;
  userId?: string | undefined;
  organisationId?: string | undefined;
}

/** The organisation that pays, and the user acting for it. */
export interface Payer {
  organisationId: string;
  userId: string | null;
  subscriptionId: string | null;
}

export interface FeeCharge {
  /** The operation's id as the register publishes it (`PPSR_02`, `createOrganisationPart`). */
  operation: string;
  feeCode: string;
  /** The API caller; for a Web (portal) or operator charge, give `payer` instead. */
  caller?: FeeCaller | undefined;
  payer?: Payer;
  /** `API` by default. */
  channel?: Channel;
  requestId?: string | undefined;
  billingReference?: string | undefined;
  /** How many of the fee (a trade mark renewal's classes); 1 by default. One record holds the product. */
  quantity?: number;
  /** What the fee is for: a case, a registration number, an organisation part. */
  object?: { kind: string; id: string } | undefined;
}

export interface ChargedFee extends Quote {
  id: number;
  organisationId: string;
  channel: Channel;
  chargedAt: Date;
  /** How it is paid: by the organisation's direct debit, or from its direct credit balance. */
  paidBy: 'direct-debit' | 'direct-credit';
}

export interface ServiceFees {
  /** False when the operator turned charging off (`RSG_FEES=off`): nothing is charged or refused. */
  readonly enabled: boolean;
  /** The fee for a code and channel, from the schedule in force. */
  quote(feeCode: string, channel?: Channel, quantity?: number): Quote;
  /** Who pays for this caller's fee-bearing calls; 403 when nobody can. */
  payer(caller: FeeCaller | undefined): Promise<Payer>;
  /**
   * Refuses (403, in the service's dialect) a fee-bearing call in production whose paying organisation
   * holds no approved direct debit authority. Reads only. In the sandbox only the payer is checked.
   */
  requireAuthority(caller: FeeCaller | undefined): Promise<Payer>;
  /**
   * Writes one fee record in `tx` (the operation's own transaction), charged at the environment's clock.
   * Throws the same 403 as `requireAuthority` when the authority is missing (roll back: nothing stays).
   * Undefined when charging is off.
   */
  charge(tx: pg.PoolClient, charge: FeeCharge): Promise<ChargedFee | undefined>;
  /** The caller's paying organisation's fee records of this service. */
  list(
    caller: FeeCaller | undefined,
    query: Omit<FeeRecordQuery, 'organisationId' | 'service'>,
  ): Promise<FeeRecordPage>;
}

export interface FeesSettings {
  environment: Environment;
  service: string;
  /** The environment's database (the ledger and the authorities). */
  database: pg.Pool;
  /** The gateway's database (organisations and memberships). */
  gateway: pg.Pool;
  clock: Clock;
  schedule: FeeSchedule;
  enabled: boolean;
  /** The register's rules accept direct credit (the IP office's): see the header. */
  directCredit?: boolean | undefined;
  /**
   * The process's payer cache (one per gateway database, shared by every service and environment): with
   * it, a payer whose memberships are in memory costs no query on the gateway database.
   */
  payers?: PayerCache | undefined;
}

export function serviceFees(settings: FeesSettings): ServiceFees {
  const { environment, service, database, gateway, clock, schedule } = settings;
  // One resolution per request: requireAuthority and charge of the same call share it.
  const resolved = new WeakMap<FeeCaller, Promise<Payer>>();

  const noOrganisation = () =>
    new RuleError('organisation', 'the acting user belongs to no organisation in this environment', {
      message: `This operation acts for an organisation account (the one its fees, if any, are charged to); the acting user belongs to no ${environment} organisation. Ask for one in the developer portal (Sandbox access); an operator approves it, or adds one (rsg organisations add, add-member).`,
      code: BILLING_ERRORS.billingOrganisationRequired,
    });
  const shortOfCredit = (organisationId: string, balanceCents: number, totalCents: number) =>
    new RuleError('organisation', 'direct credit balance is less than the fee', {
      message: `This operation's fee and GST come to NZ$${(totalCents / 100).toFixed(2)}; the paying organisation's (${organisationId}) direct credit balance is NZ$${(balanceCents / 100).toFixed(2)}. Nothing was done or charged; an operator tops the balance up.`,
      code: DIRECT_CREDIT_ERRORS.directCreditInsufficient,
    });
  const noAuthority = (organisationId: string) =>
    new RuleError('organisation', 'holds no approved direct debit authority', {
      message: `This operation carries a fee; in production the paying organisation (${organisationId}) needs an approved direct debit authority. Request one in the portal (Billing); an operator approves it.`,
      code: BILLING_ERRORS.directDebitAuthorityRequired,
    });

  /** The user's organisations in this environment, in the payer rule's order (from memory when kept). */
  async function organisationsOf(userId: string): Promise<readonly string[]> {
    const kept = settings.payers?.get(userId, environment);
    if (kept) return kept;
    const mark = settings.payers?.mark() ?? 0;
    // Identity's tables, read through identity: by role (owner, admin, member), then the oldest membership.
    const organisations = await organisationIdsByRole(gateway, userId, environment);
    // None is not kept: the sandbox makes the user's organisation next (its membership's notice follows).
    if (organisations.length > 0) settings.payers?.keep(userId, environment, organisations, mark);
    return organisations;
  }

  async function resolvePayer(caller: FeeCaller): Promise<Payer> {
    const userId = caller.userId ?? caller.subscriberId;
    const base = { userId, subscriptionId: caller.subscriptionId };
    if (caller.organisationId) return { organisationId: caller.organisationId, ...base };
    const candidates = await organisationsOf(userId);
    if (candidates.length === 0 && environment === 'sandbox') {
      return { organisationId: await personalSandboxOrganisation(gateway, userId), ...base };
    }
    if (candidates.length === 0) throw noOrganisation();
    if (candidates.length > 1 && environment === 'production') {
      const holders = await approvedAuthorityHolders(database, candidates);
      const first = candidates.find((id) => holders.has(id));
      if (first) return { organisationId: first, ...base };
    }
    return { organisationId: candidates[0]!, ...base };
  }

  const fees: ServiceFees = {
    enabled: settings.enabled,
    quote: (feeCode, channel = 'API', quantity = 1) => quote(schedule, feeCode, channel, quantity),
    payer(caller) {
      if (!caller) return Promise.reject(noOrganisation());
      let payer = resolved.get(caller);
      if (!payer) {
        payer = resolvePayer(caller);
        resolved.set(caller, payer);
        payer.catch(() => resolved.delete(caller));
      }
      return payer;
    },
    async requireAuthority(caller) {
      const payer = await fees.payer(caller);
      if (!settings.enabled || environment !== 'production') return payer;
      // Paid from a direct credit account: its balance is checked by the charge, against the fee.
      if (settings.directCredit && (await findDirectCreditAccount(database, payer.organisationId)))
        return payer;
      if (!(await holdsApprovedAuthority(database, payer.organisationId)))
        throw noAuthority(payer.organisationId);
      return payer;
    },
    async charge(tx, charge) {
      if (!settings.enabled) return undefined;
      const channel = charge.channel ?? 'API';
      const priced = quote(schedule, charge.feeCode, channel, charge.quantity ?? 1);
      if (priced.service !== service) {
        throw new Error(`the fee ${charge.feeCode} belongs to ${priced.service}, not ${service}`);
      }
      // The payer: usually in memory (the payer cache, or resolved already by requireAuthority). Then one
      // statement takes the month end's barrier and writes the fee (store/fee-records.ts).
      const payer = charge.payer ?? (await fees.payer(charge.caller));
      let chargedAt = clock.now();
      const fee = {
        organisationId: payer.organisationId,
        userId: payer.userId,
        subscriptionId: payer.subscriptionId,
        service,
        operation: charge.operation,
        feeCode: priced.code,
        description: priced.description,
        amountCents: priced.amountCents,
        gstCents: priced.gstCents,
        channel,
        requestId: charge.requestId ?? null,
        billingReference: charge.billingReference ?? null,
        objectKind: charge.object?.kind ?? null,
        objectId: charge.object?.id ?? null,
        chargedAt,
      };
      const credit = settings.directCredit
        ? await takeDirectCredit(tx, payer.organisationId, priced.amountCents + priced.gstCents, chargedAt)
        : undefined;
      if (credit && 'refused' in credit && credit.refused === 'short')
        throw shortOfCredit(payer.organisationId, credit.balanceCents, priced.amountCents + priced.gstCents);
      const paidBy = credit && !('refused' in credit) ? 'direct-credit' : 'direct-debit';
      const row = await insertFeeRecord(tx, environment, fee, paidBy);
      if (!row) throw noAuthority(payer.organisationId);
      // The fee's month closed between the clock's reading and the barrier (a month end ran just then, or
      // a sandbox clock is behind a closed month): the fee is dated by a reading taken now that the barrier
      // is held, as if the barrier had been taken first, so a fee's date is never in a month closed before
      // its charge held the barrier.
      if (row.billingPeriod !== periodOf(chargedAt)) {
        chargedAt = clock.now();
        row.billingPeriod = (await redateFeeRecord(tx, row.id, chargedAt)).billingPeriod;
      }
      if (credit && !('refused' in credit))
        await recordDirectCreditCharge(tx, {
          organisationId: payer.organisationId,
          amountCents: priced.amountCents + priced.gstCents,
          balanceAfterCents: credit.balanceCents,
          feeRecordId: row.id,
          billingPeriod: row.billingPeriod,
          at: chargedAt,
        });
      return { ...priced, id: row.id, organisationId: payer.organisationId, channel, chargedAt, paidBy };
    },
    async list(caller, query) {
      const payer = await fees.payer(caller);
      return listFeeRecords(database, { ...query, organisationId: payer.organisationId, service });
    },
  };
  return fees;
}
