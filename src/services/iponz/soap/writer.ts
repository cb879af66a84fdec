/**
 * SOAP 1.1 answers: the envelope around a body element built with fast-xml-parser's XMLBuilder (which
 * escapes every text), and the pieces of a streamed envelope. Text XML 1.0 cannot hold is removed
 * (`xmlText`). A fault is the platform's `soap` rendering (platform/http/errors.ts).
 */
import { XMLBuilder } from 'fast-xml-parser';
import { xmlText } from '../domain/bibliographic.ts';
import { SOAP11 } from './envelope.ts';

export const SOAP_CONTENT_TYPE = 'text/xml; charset=utf-8';

export const ENVELOPE_HEAD = `<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="${SOAP11}"><soap:Body>`;
export const ENVELOPE_TAIL = '</soap:Body></soap:Envelope>';

/** An element tree: text, a nested tree (keys in document order), a list of repeats, or absent. */
export type XmlTree = { [name: string]: XmlValue };
export type XmlValue = string | number | boolean | XmlTree | XmlValue[] | undefined;

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  suppressEmptyNode: false,
});

function clean(value: XmlValue): XmlValue {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return xmlText(value);
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return value.map(clean);
  const out: XmlTree = {};
  for (const [key, child] of Object.entries(value))
    if (child !== undefined) out[key] = key.startsWith('@_') ? child : clean(child);
  return out;
}

/**
 * One element in a default namespace (`xmlns` on it; its children inherit it): `<name xmlns="ns">…`.
 * A child tree may carry its own `'@_xmlns'` to switch namespace.
 */
export function xmlElement(name: string, namespace: string, tree: XmlTree): string {
  return builder.build({ [name]: { '@_xmlns': namespace, ...(clean(tree) as XmlTree) } }) as string;
}

/** The whole envelope around one body element's XML. */
export const envelope = (bodyXml: string): string => `${ENVELOPE_HEAD}${bodyXml}${ENVELOPE_TAIL}`;
