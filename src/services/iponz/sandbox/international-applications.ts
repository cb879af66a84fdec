/**
 * The sandbox's published international (PCT) applications, which a national phase application
 * (`/patent`) may name: 100 of them, numbered `PCT/<office><year>/900000` … `900099` (serials above every
 * generated case's, sandbox/generator.ts), dated back from the sandbox's "today" when seeded.
 *
 * | serials | priority date | what |
 * |---|---|---|
 * | 900000–900089 | 18–30 months before today (`18 + i % 13`) | published (18 months), within the 31-month national phase deadline |
 * | 900090–900099 | 32–41 months before today | past the deadline: refused |
 *
 * The international filing date is 12 months after the priority date (the Paris Convention year), the
 * publication 18 months after it.
 */
import { addMonths } from '../../../platform/calendar.ts';
import type { InternationalApplication } from '../domain/applications.ts';
import { pctApplicationNumber, pctPublicationNumber } from '../domain/identifiers.ts';

export const INTERNATIONAL_APPLICATIONS = 100;
export const FIRST_INTERNATIONAL_SERIAL = 900_000;
/** The first serial past its national phase deadline. */
export const PAST_DEADLINE_SERIAL = 900_090;
const OFFICES = ['AU', 'US', 'GB', 'JP', 'CN', 'DE'] as const;
const THINGS = ['valve', 'fence strainer', 'milking cup', 'kiwifruit grader', 'wool scour', 'solar dryer'];

/** The `i`-th published international application as of `today`. */
export function internationalApplication(i: number, today: string): InternationalApplication {
  const serial = FIRST_INTERNATIONAL_SERIAL + i;
  const monthsBack = serial < PAST_DEADLINE_SERIAL ? 18 + (i % 13) : 32 + (serial - PAST_DEADLINE_SERIAL);
  const priorityDate = addMonths(today, -monthsBack);
  const internationalFilingDate = addMonths(priorityDate, 12);
  const office = OFFICES[i % OFFICES.length]!;
  return {
    internationalApplicationNumber: pctApplicationNumber(
      office,
      Number(internationalFilingDate.slice(0, 4)),
      serial,
    ),
    internationalPublicationNumber: pctPublicationNumber(
      Number(addMonths(priorityDate, 18).slice(0, 4)),
      serial,
    ),
    internationalFilingDate,
    priorityDate,
    priorityCountryCode: office,
    title: `Improved ${THINGS[i % THINGS.length]}`,
  };
}

export const internationalApplications = (today: string): InternationalApplication[] =>
  Array.from({ length: INTERNATIONAL_APPLICATIONS }, (_, i) => internationalApplication(i, today));
