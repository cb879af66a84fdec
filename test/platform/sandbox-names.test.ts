import { describe, expect, it } from 'vitest';
import {
  keptDatabaseName,
  keptDatabasePrefix,
  SNAPSHOT_NAME,
  seedStateName,
} from '../../src/platform/sandbox/names.ts';

/** The names of the sandbox's kept states (platform/sandbox/names.ts). */
describe('kept states’ names', () => {
  it('snapshot names: letters, digits, . _ -, starting with a letter or digit, at most 63', () => {
    for (const name of ['a', 'before-suite', 'v1.2_final', 'A9', 'x'.repeat(63)]) {
      expect(SNAPSHOT_NAME.test(name), name).toBe(true);
    }
    for (const name of ['', '-a', '.a', 'a b', 'a/b', 'é', 'x'.repeat(64), 'seed:small', 'a\u0000']) {
      expect(SNAPSHOT_NAME.test(name), JSON.stringify(name)).toBe(false);
    }
    // The seeded state's name can never be a snapshot's.
    expect(SNAPSHOT_NAME.test(seedStateName('small'))).toBe(false);
  });

  it('databases are named after the sandbox, within PostgreSQL’s 63 bytes, whatever its name', () => {
    expect(keptDatabasePrefix('rsg_sandbox')).toBe('rsg_sandbox__');
    expect(keptDatabaseName('rsg_sandbox', 'snap')).toMatch(/^rsg_sandbox__snap_[0-9a-f]{12}$/);
    for (const sandbox of ['s'.repeat(63), `${'ä'.repeat(31)}x`, 'a'.repeat(41), 'a'.repeat(42)]) {
      for (const role of ['seed', 'snap', 'next', 'old'] as const) {
        const name = keptDatabaseName(sandbox, role);
        expect(Buffer.byteLength(name), name).toBeLessThanOrEqual(63);
        expect(name.startsWith(keptDatabasePrefix(sandbox))).toBe(true);
      }
    }
    // Two long names that share their first characters get other prefixes (a hash of the whole).
    expect(keptDatabasePrefix(`${'b'.repeat(60)}_one`)).not.toBe(keptDatabasePrefix(`${'b'.repeat(60)}_two`));
    // Each name is new.
    expect(keptDatabaseName('rsg_sandbox', 'next')).not.toBe(keptDatabaseName('rsg_sandbox', 'next'));
  });
});
