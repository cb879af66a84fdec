import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setClock } from '../../../../src/platform/environment-clocks.ts';
import { type ImportResult, importBonds } from '../../../../src/services/market-rent/operations/bonds.ts';
import { subscriber, type TestGateway, testGateway } from '../../../support/runtime.ts';

/** The sandbox clock of the integration tests: mid-March 2026, so 2026-01 is the latest period-ending. */
export const NOW = '2026-03-15T00:00:00Z';
export const BASE = '/sandbox/tenancy-services/market-rent/v2';

export interface Bond {
  id: string;
  start: string;
  lodged?: string;
  closed?: string | null;
  sa2: string | number;
  dwelling?: string;
  bedrooms?: number | string | null;
  rent: number;
  bond?: number;
}

export const HEADER =
  'bond_id,tenancy_start_date,lodgement_date,closed_date,sa2_code,dwelling_type,bedrooms,weekly_rent,bond_amount';

export function bondsCsv(bonds: readonly Bond[]): string {
  const lines = bonds.map((b) =>
    [
      b.id,
      b.start,
      b.lodged ?? b.start,
      b.closed ?? '',
      b.sa2,
      b.dwelling ?? 'House',
      b.bedrooms ?? '',
      b.rent,
      b.bond ?? b.rent * 4,
    ].join(','),
  );
  return `${HEADER}\n${lines.join('\n')}\n`;
}

let directory: string | undefined;
let fileNumber = 0;

export async function csvFile(text: string): Promise<string> {
  directory ??= await mkdtemp(path.join(tmpdir(), 'rsg-market-rent-'));
  const file = path.join(directory, `bonds-${++fileNumber}.csv`);
  await writeFile(file, text);
  return file;
}

export async function importInto(
  gateway: TestGateway,
  bonds: readonly Bond[] | string,
  environment: 'sandbox' | 'production' = 'sandbox',
): Promise<ImportResult> {
  const file = await csvFile(typeof bonds === 'string' ? bonds : bondsCsv(bonds));
  return importBonds({ database: gateway.runtime.environments[environment] }, { file });
}

/** A gateway on a virtual sandbox clock at NOW, and a sandbox key for the rental statistics product. */
export async function marketRentGateway(env: Record<string, string> = {}) {
  const gateway = await testGateway({ clockMode: 'virtual', env });
  await setClock(gateway.runtime.gateway.pool, 'sandbox', NOW);
  await gateway.runtime.clocks.reload();
  const { primaryKey } = await subscriber(gateway, 'sandbox-market-rent');
  const get = (query: string, headers: Record<string, string> = {}) =>
    gateway.app.inject({
      method: 'GET',
      url: `${BASE}${query}`,
      headers: { 'Ocp-Apim-Subscription-Key': primaryKey, ...headers },
    });
  return { gateway, key: primaryKey, get };
}

export async function setSandboxClock(gateway: TestGateway, iso: string): Promise<void> {
  await setClock(gateway.runtime.gateway.pool, 'sandbox', iso);
  await gateway.runtime.clocks.reload();
}
