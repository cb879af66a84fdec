/**
 * The offers register's data-request form (spec part A: one-off bulk data requests "go through a
 * separate data-request form"): what a request holds and what an answer may be.
 */
export type DataRequestFormat = 'csv' | 'json' | 'xlsx' | 'other';
export type DataRequestState = 'open' | 'answered' | 'declined';

/** The largest answer an operator may upload (multipart, streamed to the data folder). */
export const ANSWER_LIMIT = 200 * 1024 * 1024;

export const FORMATS: Record<DataRequestFormat, string> = {
  csv: 'CSV',
  json: 'JSON',
  xlsx: 'Excel workbook',
  other: 'Other (say which in the description)',
};

export const isFormat = (value: string): value is DataRequestFormat => Object.hasOwn(FORMATS, value);
