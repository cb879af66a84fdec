import { describe, expect, it } from 'vitest';
import { sharedBuffersMb } from '../../src/platform/db/embedded.ts';

const GIB = 1024 ** 3;

describe('embedded PostgreSQL shared buffers', () => {
  it('takes an eighth of the memory, at least 128 MB and at most 1 GB', () => {
    expect(sharedBuffersMb(0.5 * GIB)).toBe(128);
    expect(sharedBuffersMb(4 * GIB)).toBe(512);
    expect(sharedBuffersMb(8 * GIB)).toBe(1024);
    expect(sharedBuffersMb(64 * GIB)).toBe(1024);
  });
});
