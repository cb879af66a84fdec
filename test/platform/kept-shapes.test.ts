import { describe, expect, it } from 'vitest';
import { keepTickShapes, keptTick } from '../../src/platform/http/kept-shapes.ts';

describe('kept tick shapes', () => {
  it('keeps one of Node’s tick objects (async id, trigger id, callback) alive', async () => {
    keepTickShapes();
    await new Promise((resolve) => setImmediate(resolve));
    const tick = keptTick() as Record<string | symbol, unknown> | undefined;
    expect(tick).toBeDefined();
    // A tick object, not some other resource: its own symbol keys are Node's async ids.
    const symbols = Object.getOwnPropertySymbols(tick).map(String);
    expect(symbols).toEqual(
      expect.arrayContaining(['Symbol(async_id_symbol)', 'Symbol(trigger_async_id_symbol)']),
    );
    expect(typeof tick!.callback).toBe('function');
    // A second call starts nothing new: the same object stays kept.
    keepTickShapes();
    await new Promise((resolve) => setImmediate(resolve));
    expect(keptTick()).toBe(tick);
  });
});
