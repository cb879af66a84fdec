import type { FastifyRequest } from 'fastify';
import { PLATFORM_ERRORS } from './error-codes.ts';
import { HttpError } from './errors.ts';

/**
 * Content negotiation on the Accept header (RFC 9110 §12.5.1): the offered type with the highest
 * quality wins, ties going to the server's order of preference. No Accept means the first offer.
 * Nothing acceptable → 406 naming what is served.
 */
interface Range {
  type: string;
  subtype: string;
  q: number;
  specificity: number;
}

function parseAccept(header: string): Range[] {
  return header
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [mediaRange = '', ...params] = part.split(';').map((p) => p.trim());
      const [type = '*', subtype = '*'] = mediaRange.toLowerCase().split('/');
      let q = 1;
      for (const param of params) {
        const [name, value] = param.split('=').map((p) => p.trim());
        if (name?.toLowerCase() === 'q' && value !== undefined) {
          const parsed = Number(value);
          q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
        }
      }
      const specificity = (type === '*' ? 0 : 2) + (subtype === '*' ? 0 : 1);
      return { type, subtype, q, specificity };
    });
}

function qualityOf(ranges: Range[], offer: string): number {
  const [type, subtype] = offer.split('/');
  let best: Range | undefined;
  for (const range of ranges) {
    const fits =
      (range.type === '*' || range.type === type) && (range.subtype === '*' || range.subtype === subtype);
    if (fits && (!best || range.specificity > best.specificity)) best = range;
  }
  return best ? best.q : 0;
}

export function negotiate<T extends string>(request: FastifyRequest, offers: readonly [T, ...T[]]): T {
  const header = request.headers.accept;
  if (!header?.trim()) return offers[0];
  const ranges = parseAccept(header);
  let chosen: T | undefined;
  let chosenQ = 0;
  for (const offer of offers) {
    const q = qualityOf(ranges, offer);
    if (q > chosenQ) {
      chosen = offer;
      chosenQ = q;
    }
  }
  if (!chosen) {
    throw new HttpError(
      PLATFORM_ERRORS.notAcceptable,
      `Not Acceptable: this resource is served as ${offers.join(', ')}`,
      [{ field: 'Accept', message: `must accept one of ${offers.join(', ')}` }],
    );
  }
  return chosen;
}
