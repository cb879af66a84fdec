/**
 * A seeded patent's detail (domain/patent-detail.ts), deterministic per case number and outside the
 * case's own random stream (the rest of a generated case is unchanged). Ours:
 * - 5–30 claims; claim 1 and up to two more are independent (a product, a method, a system).
 * - 1–3 IPC symbols from subclasses a New Zealand register sees often.
 * - A priority claim in the case's priority country: a PCT case's earlier national filing 1–12 months
 *   before the international filing date; a national case's New Zealand provisional (six in ten) 1–12
 *   months before its filing. Numbers `<country><year><6 digits>`.
 * - A PCT case's publication: its `InternationalPublicationNumber`, 18 months after its earliest priority
 *   (the filing date without one), never after today.
 */
import { addMonths } from '../../../platform/calendar.ts';
import { seeded } from '../../../platform/random.ts';
import type { PatentDetail, PriorityClaim } from '../domain/patent-detail.ts';

const SUBCLASSES = [
  'A01B',
  'A01J',
  'A23C',
  'A47J',
  'A61B',
  'A61K',
  'B01D',
  'B65D',
  'E04B',
  'F16K',
  'G01N',
  'G06F',
  'H02J',
];
const SUBGROUPS = ['00', '02', '04', '10', '12', '16', '20', '30', '4045'];
const SUBJECTS = ['valve', 'fence strainer', 'milking cup', 'fruit grader', 'solar dryer', 'water filter'];
const PARTS = [
  'a housing',
  'a sensor',
  'an inlet',
  'a controller',
  'a seal',
  'a frame',
  'a pump',
  'an outlet',
];

export interface PatentDetailInput {
  caseNumber: number;
  termDate: string;
  applicationDate: string;
  priorityCountryCode: string | null;
  internationalPublicationNumber: string | null;
}

export function seededPatentDetail(input: PatentDetailInput, today: string): PatentDetail {
  const random = seeded('iponz', 'patent-detail', input.caseNumber);
  const subject = random.pick(SUBJECTS);
  const parts = () => `${random.pick(PARTS)}, ${random.pick(PARTS)} and ${random.pick(PARTS)}`;
  const count = random.int(5, 30);
  const independent = [{ number: 1, text: `A ${subject} comprising ${parts()}.` }];
  const more = random.int(0, 2);
  const method = Math.min(count, random.int(8, 12));
  if (more >= 1 && method < count)
    independent.push({
      number: method,
      text: `A method of operating a ${subject}, comprising providing ${parts()}.`,
    });
  if (more >= 2 && method + 4 <= count)
    independent.push({ number: count, text: `A system comprising the ${subject} and ${parts()}.` });
  const ipc = new Set<string>();
  const n = random.int(1, 3);
  while (ipc.size < n) ipc.add(`${random.pick(SUBCLASSES)} ${random.int(1, 99)}/${random.pick(SUBGROUPS)}`);
  const pct = input.internationalPublicationNumber !== null;
  const priorityClaims: PriorityClaim[] = [];
  const claimed = random.chance(0.6);
  if (input.priorityCountryCode && (pct || claimed)) {
    const date = addMonths(pct ? input.termDate : input.applicationDate, -random.int(1, 12));
    const serial = String(random.int(0, 999_999)).padStart(6, '0');
    priorityClaims.push({
      number: `${input.priorityCountryCode}${date.slice(0, 4)}${serial}`,
      date,
      countryCode: input.priorityCountryCode,
    });
  }
  const earliest = priorityClaims[0]?.date ?? input.termDate;
  const published = addMonths(earliest, 18);
  return {
    abstract:
      `A ${subject} is disclosed having ${parts()}. ` +
      `The arrangement reduces wear and makes the ${subject} easier to clean and maintain.`,
    claims: { count, independent },
    ipcClassifications: [...ipc].sort(),
    priorityClaims,
    pctPublication: pct
      ? { number: input.internationalPublicationNumber!, date: published < today ? published : today }
      : null,
  };
}
