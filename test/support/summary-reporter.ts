import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends the run with one plain line, `N passed, N failed, N skipped`, that any reader can count, after
 * the slowest test files (the time each spent importing and running, in its worker): where a pass's
 * minutes go, in every CI log.
 */
const SLOWEST = 12;

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const times: { file: string; seconds: number }[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (module.state() === 'failed' && module.children.size === 0) failed++;
      const diagnostic = module.diagnostic();
      times.push({
        file: path.relative(process.cwd(), module.moduleId),
        seconds: (diagnostic.collectDuration + diagnostic.duration) / 1000,
      });
    }
    times.sort((a, b) => b.seconds - a.seconds);
    const total = times.reduce((sum, t) => sum + t.seconds, 0);
    const lines = times
      .slice(0, SLOWEST)
      .map((t) => `  ${t.seconds.toFixed(1).padStart(6)} s  ${t.file}`)
      .join('\n');
    process.stdout.write(
      `\nSlowest test files (of ${times.length}, ${total.toFixed(0)} s in all across the workers):\n${lines}\n`,
    );
    process.stdout.write(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
