import { describe, expect, it } from 'vitest';
import { callerRequestId, newRequestId, requestIdOf } from '../../src/platform/http/request-id.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const HEADER = 'api-business-govt-nz-request-id';

describe('generated request ids', () => {
  it('are version-4 UUIDs, all different', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const id = newRequestId();
      expect(id).toMatch(UUID_V4);
      seen.add(id);
    }
    expect(seen.size).toBe(10_000);
  });

  it('tell nothing of the next one: no two consecutive ids share a prefix, a suffix or a small difference', () => {
    let previous = newRequestId();
    for (let i = 0; i < 5_000; i++) {
      const next = newRequestId();
      const [a, b] = [previous.replaceAll('-', ''), next.replaceAll('-', '')];
      // 48 random bits each side: a shared run would be a one-in-2^48 chance, or a counter.
      expect(b.slice(0, 12)).not.toBe(a.slice(0, 12));
      expect(b.slice(-12)).not.toBe(a.slice(-12));
      const difference = BigInt(`0x${b}`) - BigInt(`0x${a}`);
      expect(difference > 1n << 64n || difference < -(1n << 64n)).toBe(true);
      previous = next;
    }
  });
});

describe('which ids the caller sent', () => {
  it('takes a safe id of the caller’s, and makes one for a missing or unsafe id', () => {
    expect(requestIdOf({ headers: { [HEADER]: 'order-42:a.b_c' } })).toBe('order-42:a.b_c');
    expect(requestIdOf({ headers: {} })).toMatch(UUID_V4);
    expect(requestIdOf({ headers: { [HEADER]: 'has space' } })).toMatch(UUID_V4);
    expect(requestIdOf({ headers: { [HEADER]: 'x'.repeat(129) } })).toMatch(UUID_V4);
  });

  it('knows an id the gateway made from one the caller sent, even one equal to a generated id', () => {
    const made = newRequestId();
    expect(callerRequestId({ id: made, headers: {} })).toBeUndefined();
    expect(callerRequestId({ id: made, headers: { [HEADER]: made } })).toBe(made);
    // An unsafe id was replaced: what the request is named by is not the caller's.
    expect(callerRequestId({ id: made, headers: { [HEADER]: 'has space' } })).toBeUndefined();
  });
});
