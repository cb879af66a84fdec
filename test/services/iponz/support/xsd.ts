import { expect } from 'vitest';
import { validateXML } from 'xmllint-wasm';

/** Validates an XML answer against an XSD with libxml2's validator (xmllint-wasm). */
export async function expectValid(xml: string, xsd: string, label = 'answer'): Promise<void> {
  const result = await validateXML({
    xml: [{ fileName: 'answer.xml', contents: xml }],
    schema: [{ fileName: 'schema.xsd', contents: xsd }],
  });
  expect(
    result.valid,
    `${label}: ${result.errors.map((e) => e.message).join('; ')}\n${xml.slice(0, 500)}`,
  ).toBe(true);
}
