import { describe, expect, it } from 'vitest';
import { progress } from '../../../src/platform/transfer/progress.ts';

/** A stream that is not a terminal, keeping what was written. */
function captured() {
  const written: string[] = [];
  const stream = {
    isTTY: false,
    write: (text: string) => written.push(text),
  } as unknown as NodeJS.WriteStream;
  return { stream, text: () => written.join('') };
}

describe('progress off a terminal', () => {
  it('a line a tenth; the 100% line at the phase’s end, with its whole count', () => {
    const out = captured();
    const bar = progress('importing nzbn', out.stream);
    bar.update(5, 100, 1);
    bar.update(55, 100, 10);
    bar.update(100, 100, 20);
    bar.update(100, 100, 21);
    bar.update(100, 100, 25);
    bar.finish();
    bar.finish();
    expect(out.text()).toBe(
      [
        'importing nzbn   5% 1 records',
        'importing nzbn  55% 10 records',
        'importing nzbn 100% 25 records',
        '',
      ].join('\n'),
    );
  });

  it('a small file read at once says its count once, before the next phase and before a note', () => {
    const out = captured();
    const bar = progress('checking ppsr', out.stream);
    bar.update(40, 40, 1);
    bar.update(40, 40, 5);
    bar.phase('importing ppsr');
    bar.update(40, 40, 2);
    bar.note('committed 2 records');
    bar.update(40, 40, 5);
    bar.finish();
    expect(out.text()).toBe(
      [
        'checking ppsr 100% 5 records',
        'importing ppsr 100% 2 records',
        'committed 2 records',
        'importing ppsr 100% 5 records',
        '',
      ].join('\n'),
    );
  });
});
