import { expect } from 'vitest';
import { validateXML } from 'xmllint-wasm';

/**
 * Validates XML answers against an XSD with libxml2's validator (xmllint-wasm): one document, or many in
 * one run of the validator.
 */
export async function expectValid(
  xml: string | readonly string[],
  xsd: string,
  label = 'answer',
): Promise<void> {
  const documents = typeof xml === 'string' ? [xml] : xml;
  const result = await validateXML({
    xml: documents.map((contents, i) => ({ fileName: `answer-${i}.xml`, contents })),
    schema: [{ fileName: 'schema.xsd', contents: xsd }],
  });
  expect(
    result.valid,
    `${label}: ${result.errors.map((e) => `${e.loc?.fileName ?? ''} ${e.message}`).join('; ')}`,
  ).toBe(true);
}
