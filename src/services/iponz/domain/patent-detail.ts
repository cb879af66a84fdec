/**
 * A patent's detail (ours: the published data dictionary stops at the current status and the priority
 * country): its abstract, claims (how many, and the text of the independent ones), IPC classifications
 * (International Patent Classification symbols, `A61K 31/4045`: section, class, subclass, main group /
 * subgroup), priority claims (the earlier application's number, date and office) and, for a PCT case, the
 * international publication (number and date). Its inventors are the case's parties of role Inventor.
 */

export interface IndependentClaim {
  number: number;
  text: string;
}

export interface PriorityClaim {
  number: string;
  date: string;
  countryCode: string;
}

export interface PatentDetail {
  abstract: string;
  claims: { count: number; independent: IndependentClaim[] };
  ipcClassifications: string[];
  priorityClaims: PriorityClaim[];
  pctPublication: { number: string; date: string } | null;
}

/** An IPC symbol: section A–H, two-digit class, subclass letter, a space, main group / subgroup. */
export const IPC_PATTERN = /^[A-H][0-9]{2}[A-Z] [0-9]{1,4}\/[0-9]{2,6}$/;
