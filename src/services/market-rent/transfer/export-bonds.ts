/**
 * `rsg export bonds [--output FILE]`: every rental bond as the CSV `rsg import bonds` reads (its header,
 * then one bond a line, in bond id order; gzip when FILE ends in `.gz`), so an export imported into an
 * empty environment and exported again gives the same bytes. The import is unchanged (commands/).
 */
import { csvLine } from '../../../platform/bulk-files.ts';
import { exportCommand } from '../../../platform/transfer/command.ts';
import { IMPORT_COLUMNS } from '../domain/bond-rows.ts';
import { bondsAfter } from '../store/transfer.ts';

const PAGE = 5000;
const line = (cells: (string | number | null)[]) => csvLine(cells).slice(0, -2);

export const exportBondsCommand = exportCommand({
  name: 'bonds',
  records: 'rental bonds as the CSV rsg import bonds reads',
  async exportAll({ database, output }) {
    await output.writeLine(line([...IMPORT_COLUMNS]));
    let count = 0;
    let after = '';
    for (;;) {
      const rows = await bondsAfter(database.pool, after, PAGE);
      for (const b of rows) {
        await output.writeLine(
          line([
            b.bondId,
            b.tenancyStart,
            b.lodged,
            b.closed,
            b.sa2Code,
            b.dwellingType,
            b.bedrooms,
            b.weeklyRent,
            b.bondAmount,
          ]),
        );
      }
      count += rows.length;
      if (rows.length < PAGE) return count;
      after = rows.at(-1)!.bondId;
    }
  },
});
