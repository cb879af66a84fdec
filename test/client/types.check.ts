/**
 * Type tests of the client (checked by `tsc -p .`, never run): each `@ts-expect-error` line is a call the
 * client's types must refuse, so a type that lets it through fails the type-check (an unused directive
 * is an error). The lines without a directive must compile.
 */
import { createClient, PreconditionFailedError, RegisterError } from '../../packages/client/src/index.ts';

const baseUrl = 'http://localhost:3000';
const nzbn = createClient({ register: 'nzbn', environment: 'sandbox', baseUrl, key: 'k' });
const ppsr = createClient({ register: 'ppsr', environment: 'sandbox', baseUrl, key: 'k' });
const disclose = createClient({
  register: 'disclose',
  environment: 'sandbox',
  baseUrl,
  key: 'k',
  organisation: 'o',
});
const rents = createClient({ register: 'market-rent', environment: 'production', baseUrl, key: 'k' });
const ip = createClient({ register: 'iponz', environment: 'sandbox', baseUrl, key: 'k' });

export async function typeTests(): Promise<void> {
  // Path parameters by their published names, answers typed from the documents.
  const entity = await nzbn.EntitiesByNzbnGet({ path: { nzbn: '9429041525746' } });
  const name: string | undefined = entity.entityName ?? undefined;
  // @ts-expect-error the path parameter is `nzbn`, not `id`
  await nzbn.EntitiesByNzbnGet({ path: { id: '9429041525746' } });
  // @ts-expect-error the path parameter is required
  await nzbn.EntitiesByNzbnGet({});
  // @ts-expect-error no such operation id
  await nzbn.EntitiesByNumberGet({ path: { nzbn: '1' } });
  // @ts-expect-error `page-size` is a number
  await nzbn.EntitiesGet({ query: { 'search-term': 'kiwi', 'page-size': 'ten' } });
  for await (const item of nzbn.paginate('EntitiesGet', { query: { 'search-term': 'kiwi' } })) {
    const itemName: string | undefined = item.entityName;
    void itemName;
  }
  // @ts-expect-error an operation that takes no page cannot be paged
  nzbn.paginate('EntitiesByNzbnGet', { path: { nzbn: '1' } });

  const statement = await ppsr.PPSR_01({ path: { registrationNumber: 'FH04R729A8ND9224' } });
  const version: number = statement.version;
  // @ts-expect-error the register's path parameter is `registrationNumber`
  await ppsr.PPSR_01({ path: { 'registration-number': 'FH04R729A8ND9224' } });
  // @ts-expect-error a search needs its body
  await ppsr.PPSR_02({});
  // @ts-expect-error `transact` runs writes only, not a read
  await ppsr.transact('PPSR_01', { path: { registrationNumber: 'FH04R729A8ND9224' } });

  const offers = await disclose.searchOffers({ query: { page: 1 } });
  const first: unknown = offers.items[0];
  // @ts-expect-error the offers register has no `getOffers`
  await disclose.getOffers();
  // @ts-expect-error the offers register needs the organisation (`x-organisation`)
  createClient({ register: 'disclose', environment: 'sandbox', baseUrl, key: 'k' });

  const statistics = await rents.getStatistics({
    query: { 'period-ending': '2024-06', 'num-months': 6, 'area-definition': 'SAU2019' },
  });
  void statistics;
  const wrongMonths = { 'period-ending': '2024-06', 'num-months': '6', 'area-definition': 'SAU2019' };
  // @ts-expect-error `num-months` is a number
  await rents.getStatistics({ query: wrongMonths });

  // Answers typed by the media type asked for: JSON by default, CSV and XML as text, a PDF as a Blob.
  const csv: string = await rents.getStatistics({
    query: { 'period-ending': '2024-06', 'num-months': 6, 'area-definition': 'SAU2019' },
    accept: 'text/csv',
  });
  const labels = await rents.getAreaLabels({ path: { areaDefinition: 'TA2019' } });
  void labels.items;
  // @ts-expect-error CSV is text, not the JSON answer
  void (await rents.getAreaLabels({ path: { areaDefinition: 'TA2019' }, accept: 'text/csv' })).items;
  // @ts-expect-error the rental statistics answer no XML
  await rents.getAreaDefinitions({ accept: 'application/xml' });
  const pdf: Blob = await ppsr.PPSR_02_CERTIFICATE_PDF({ path: { certificateNumber: 'C1' } });
  // @ts-expect-error a PDF is a Blob, not text
  const pdfText: string = await ppsr.PPSR_02_CERTIFICATE_PDF({ path: { certificateNumber: 'C1' } });
  const patentJson = await ip.getPatent({ path: { patentNumber: '500050' } });
  const patentXml: string = await ip.getPatent({
    path: { patentNumber: '500050' },
    accept: 'application/xml',
  });
  // @ts-expect-error the JSON answer is an object, not text
  const patentNotText: string = await ip.getPatent({ path: { patentNumber: '500050' } });
  const xsd: string = await ip.getSchema({ path: { schema: 'patent.xsd' } });
  void [csv, pdf, pdfText, patentJson, patentXml, patentNotText, xsd];

  const clients = await ip.searchClients({ query: { name: 'Kiwi%' } });
  void clients;
  // @ts-expect-error the client search needs `name`
  await ip.searchClients({ query: { address: 'Wellington' } });

  const tasks = await ip.soap.getTaskList({
    TransactionIdentifier: 't1',
    TransactionCode: 'Get Task List',
    RequestorIdentifier: 'me',
  });
  void tasks.Tasks;
  const wrongCode = {
    TransactionIdentifier: 't1',
    TransactionCode: 'Get Tasks',
    RequestorIdentifier: 'me',
  } as const;
  // @ts-expect-error the TransactionCode of getTaskList is 'Get Task List'
  await ip.soap.getTaskList(wrongCode);

  try {
    await ppsr.PPSR_03({ path: { registrationNumber: 'FH04R729A8ND9224' }, body: {} as never });
  } catch (error) {
    if (error instanceof PreconditionFailedError) void error.sentEtag;
    else if (error instanceof RegisterError && error.details.kind === 'problem') void error.details.errors;
  }
  void name;
  void version;
  void first;
}
