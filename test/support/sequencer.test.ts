import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/platform/paths.ts';
import { SLOW_FIRST } from './sequencer.ts';

describe('the slow-first list of the sequencer', () => {
  it('names test files that exist, each once', () => {
    const missing = SLOW_FIRST.filter(
      (file) => !file.endsWith('.test.ts') || !existsSync(path.join(PROJECT_ROOT, file)),
    );
    expect(missing).toEqual([]);
    expect(new Set(SLOW_FIRST).size).toBe(SLOW_FIRST.length);
  });
});
