import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order files start in. Three workers take files from one queue, so a pass ends when its last file
 * ends: a file that takes a minute must start early, not be picked up last by a worker that would
 * otherwise be done. Vitest orders by the last run's durations when its cache has them (a second run in
 * the same checkout, like CI's second pass), and otherwise by file size, which says little here: the
 * slowest files are small ones that start real processes or a browser. So without durations for every
 * file, the files below (the slowest of the summary reporter's table, slowest first) go first, then the
 * rest by size. A name here that is no longer a test file is an error (sequencer.test.ts checks it), so the list
 * cannot quietly go stale.
 */
export const SLOW_FIRST = [
  'test/cli/start.test.ts',
  'test/portal/reference-browser.test.ts',
  'test/scale/scale-out.test.ts',
  'test/services/market-rent/equality.test.ts',
  'test/portal/auth.test.ts',
  'test/services/nzbn/activity.test.ts',
  'test/portal/forms-fuzz.test.ts',
  'test/services/nzbn/seed.test.ts',
  'test/services/nzbn/watchlists/workers.test.ts',
  'test/portal/billing-browser.test.ts',
  'test/cli/cli.test.ts',
  'test/portal/pages.test.ts',
  'test/portal/browser.test.ts',
  'test/services/iponz/soap-correspondence.test.ts',
  'test/gateway/database-faults.test.ts',
  'test/gateway/database-restart.test.ts',
  'test/services/nzbn/updates.test.ts',
];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const key = (file: TestSpecification) => path.relative(root, file.moduleId).split(path.sep).join('/');
    const measured = files.every((file) =>
      this.ctx.cache.getFileTestResults(`${file.project.name}:${key(file)}`),
    );
    if (measured) return sorted;
    const rank = (file: TestSpecification) => {
      const at = SLOW_FIRST.indexOf(key(file));
      return at === -1 ? SLOW_FIRST.length : at;
    };
    // Array.prototype.sort is stable: the rest keep the size order of Vitest's own sort.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
