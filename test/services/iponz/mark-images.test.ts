import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markPicture, markPixels } from '../../../src/services/iponz/documents/mark-picture.ts';
import { decodeGif } from './support/gif.ts';
import { bodyElement, type SoapTest, soapTest } from './support/soap-client.ts';

/**
 * Trade mark detail from outside: the mark's image is found from its record's `MarkImageName` (a
 * document of the case has that name) and downloads as a picture of the mark (a GIF whose ink spells
 * the title: decoded by an independent decoder and compared with the font's pixels); the Nice classes
 * carry their goods and services text.
 */
let s: SoapTest;
beforeAll(async () => {
  s = await soapTest();
}, 120_000);
afterAll(async () => s?.close());
const parser = new XMLParser({ parseTagValue: false, removeNSPrefix: true });

describe('the mark image', () => {
  it('a GIF of the title: the decoded pixels are the font’s, two colours, the same every time', () => {
    const bytes = markPicture('KIWI CLOUD');
    const decoded = decodeGif(bytes);
    const expected = markPixels('KIWI CLOUD');
    expect([decoded.width, decoded.height]).toEqual([expected.width, expected.height]);
    expect(Buffer.from(decoded.indices).equals(Buffer.from(expected.pixels))).toBe(true);
    expect(new Set(decoded.indices)).toEqual(new Set([0, 1]));
    expect(markPicture('KIWI CLOUD').equals(bytes)).toBe(true);
    expect(markPicture('Kiwi Cloud').equals(bytes)).toBe(true);
    expect(markPicture('KIWI CLOUDS').equals(bytes)).toBe(false);
  });

  it.each([1000004, 1000000])(
    'trade mark %i: MarkImageName names a document of the case, a picture of the mark',
    async (n) => {
      const xml = await s.t.call('GET', `/trademarks/${n}`, { headers: { accept: 'application/json' } });
      const mark = xml.json().TradeMark;
      expect(mark.MarkImageName).toBe(`${n}.gif`);
      const image = mark.Documents.Document.filter(
        (d: { ObjectName: string }) => d.ObjectName === mark.MarkImageName,
      );
      expect(image).toHaveLength(1);
      expect(image[0].ObjectFormat).toBe('gif');
      expect(mark.GoodsAndServices.ClassDescription).toEqual([
        { ClassNumber: '9', Description: 'Computer software; downloadable applications' },
        { ClassNumber: '42', Description: 'Software as a service' },
      ]);
      const client = await s.client('/download-document');
      const [, raw] = await client.GetObjectAsync({ ObjectIdentifier: image[0].ObjectIdentifier });
      const answer = parser.parse(bodyElement(raw as string)).GetObjectResponse;
      expect(answer.ObjectName).toBe(mark.MarkImageName);
      const picture = decodeGif(Buffer.from(answer.ObjectData, 'base64'));
      const expected = markPixels(mark.MarkTitle);
      expect(Buffer.from(picture.indices).equals(Buffer.from(expected.pixels))).toBe(true);
    },
  );

  it('every generated trade mark with a MarkImageName has exactly one document it names; one without, no image', async () => {
    const pool = s.t.gateway.runtime.environments.sandbox.pool;
    const { rows } = await pool.query(
      `SELECT c.case_number, count(d.*) FILTER (WHERE d.document_name = c.mark_image_name AND d.object_format = 'gif') AS images
         FROM iponz_cases c LEFT JOIN iponz_case_documents d USING (kind, case_number)
        WHERE c.kind = 'trademark' AND c.case_number < 1900000 AND c.mark_image_name IS NOT NULL
        GROUP BY 1 HAVING count(d.*) FILTER (WHERE d.document_name = c.mark_image_name AND d.object_format = 'gif') <> 1`,
    );
    expect(rows).toEqual([]);
    const unimaged = await pool.query(
      `SELECT c.case_number FROM iponz_cases c JOIN iponz_case_documents d USING (kind, case_number)
        WHERE c.kind = 'trademark' AND c.mark_image_name IS NULL AND d.object_format = 'gif'`,
    );
    expect(unimaged.rows).toEqual([]);
    const { rows: counts } = await pool.query(
      `SELECT count(*) FILTER (WHERE mark_image_name IS NULL)::int AS without, count(*)::int AS marks
         FROM iponz_cases WHERE kind = 'trademark'`,
    );
    expect(counts[0].without).toBeGreaterThan(counts[0].marks / 3);
  });
});
