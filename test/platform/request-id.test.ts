import { describe, expect, it } from 'vitest';
import { RequestIds } from '../../src/platform/http/request-id.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('generated request ids', () => {
  it('are version-4 UUIDs, all different, over many runs of 256', () => {
    const ids = new RequestIds();
    const seen = new Set<string>();
    for (let i = 0; i < 256 * 40 + 7; i++) {
      const id = ids.take();
      expect(id).toMatch(UUID_V4);
      seen.add(id);
    }
    expect(seen.size).toBe(256 * 40 + 7);
  });

  it('differ between generators (processes) from the first id on', () => {
    const a = new RequestIds();
    const b = new RequestIds();
    const first = [a.take(), b.take()];
    expect(first[0]).not.toBe(first[1]);
    // A run shares its first 34 characters and counts in the last two.
    const second = a.take();
    expect(second.slice(0, 34)).toBe(first[0]!.slice(0, 34));
    expect(Number.parseInt(second.slice(34), 16)).toBe(Number.parseInt(first[0]!.slice(34), 16) + 1);
  });
});
