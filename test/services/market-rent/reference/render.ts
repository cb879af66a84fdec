import { ITEM_KEYS, type StatisticsItem } from './report.ts';

/**
 * The two representations of a statistics answer; both carry the same numbers, CSV writing null as an
 * empty field. JSON.stringify of the items (whose keys are in the published order) is faster than any
 * hand-written template here.
 */
export function statisticsJson(
  areaDefinition: string,
  periodCovered: string,
  items: StatisticsItem[],
): string {
  return JSON.stringify({ areaDefinition, periodCovered, items });
}

/** An answer written in batches of rows (see writeReport); `finish` gives the text. */
export interface AnswerWriter {
  add(items: StatisticsItem[]): void;
  finish(): string;
}

/** The JSON envelope, its items stringified batch by batch: the same text as statisticsJson. */
export function jsonWriter(areaDefinition: string, periodCovered: string): AnswerWriter {
  const parts: string[] = [];
  return {
    add: (items) => parts.push(JSON.stringify(items).slice(1, -1)),
    finish: () =>
      `${JSON.stringify({ areaDefinition, periodCovered }).slice(0, -1)},"items":[${parts.join(',')}]}`,
  };
}

/** CSV batch by batch: the same text as statisticsCsv. */
export function csvWriter(): AnswerWriter {
  const parts: string[] = [];
  return {
    add: (items) => parts.push(statisticsCsv(items).slice(HEADER.length)),
    finish: () => HEADER + parts.join(''),
  };
}

/** RFC 4180 field: quoted when it holds a comma, quote or line break; null as empty. */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const HEADER = `${ITEM_KEYS.join(',')}\r\n`;

export function statisticsCsv(items: StatisticsItem[]): string {
  const lines = [ITEM_KEYS.join(',')];
  for (const i of items) {
    lines.push(
      `${csvField(i.area)},${i.dwell},${i.nBedrms},${i.nLodged},${i.nClosed},${i.nCurr},${csvField(i.mean)},${csvField(i.lq)},${csvField(i.med)},${csvField(i.uq)},${csvField(i.sd)},${csvField(i.brr)},${csvField(i.lmean)},${csvField(i.lsd)},${csvField(i.slq)},${csvField(i.suq)}`,
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** Any list of flat objects as CSV with the given columns. */
export function csvTable<K extends string>(
  columns: readonly K[],
  rows: readonly Partial<Record<K, string | number | null>>[],
): string {
  const lines = [columns.join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvField(row[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
