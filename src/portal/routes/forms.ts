import { invalidField } from '../errors.ts';

/**
 * Reading a form's fields (the platform's strict form parser has made the body: every value a string,
 * or an array of strings when repeated; a multipart body has the same shape for its text fields).
 */
type Body = Record<string, unknown> | null | undefined;

/** A form field as a string: the first value when repeated, '' when absent, at most `max` characters. */
export function field(body: unknown, name: string, max = 2000): string {
  const value = (body as Body)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first.slice(0, max) : '';
}

/** Every value of a repeated form field (checkboxes). */
export function fields(body: unknown, name: string): string[] {
  const value = (body as Body)?.[name];
  const all = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return all.filter((item): item is string => typeof item === 'string').slice(0, 20);
}

/** A text field, trimmed: 400 naming it when missing (if required) or longer than `max`. */
export function textField(body: unknown, name: string, max: number, required = true): string {
  const value = (body as Body)?.[name];
  const text = typeof value === 'string' ? value.trim() : '';
  if (required && !text) throw invalidField(name, 'required');
  if (text.length > max) throw invalidField(name, `at most ${max} characters`);
  return text;
}

/** A query parameter as a string ('' when absent or repeated). */
export function queryValue(query: unknown, name: string): string {
  const value = (query as Body)?.[name];
  return typeof value === 'string' ? value : '';
}
