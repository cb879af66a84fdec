import { describe, expect, it } from 'vitest';
import { addDuration, VirtualClock } from '../../src/platform/clock.ts';

const from = new Date('2026-01-31T10:00:00.000Z');

describe('durations', () => {
  it.each([
    ['90s', '2026-01-31T10:01:30.000Z'],
    ['20m', '2026-01-31T10:20:00.000Z'],
    ['2h30m', '2026-01-31T12:30:00.000Z'],
    ['7d', '2026-02-07T10:00:00.000Z'],
    ['1w', '2026-02-07T10:00:00.000Z'],
    ['450m', '2026-01-31T17:30:00.000Z'],
    ['PT2H', '2026-01-31T12:00:00.000Z'],
    ['P1DT12H', '2026-02-01T22:00:00.000Z'],
    ['1mo', '2026-03-03T10:00:00.000Z'], // calendar month from 31 January rolls over like Date does
    ['P1M', '2026-03-03T10:00:00.000Z'],
  ])('%s from 31 January 10:00', (text, expected) => {
    expect(addDuration(from, text).toISOString()).toBe(expected);
  });

  it.each(['', 'soon', '5', 'P', 'PT', '2 hours', '1.5mo'])('refuses "%s"', (text) => {
    expect(() => addDuration(from, text)).toThrow(RangeError);
  });
});

describe('virtual clock', () => {
  it('runs with wall time plus its offset', () => {
    let wall = 1_000_000;
    const clock = new VirtualClock({ offsetMs: 5_000, frozenAt: null }, () => wall);
    expect(clock.now().getTime()).toBe(1_005_000);
    wall += 10;
    expect(clock.now().getTime()).toBe(1_005_010);
  });

  it('stands still when frozen', () => {
    let wall = 0;
    const clock = new VirtualClock({ offsetMs: 0, frozenAt: from }, () => wall);
    wall += 60_000;
    expect(clock.now()).toEqual(from);
  });
});
