import { describe, expect, it } from 'vitest';
import { findNulCharacter } from '../../src/platform/http/input-text.ts';

describe('NUL characters in input', () => {
  it('names the first string or key that holds one by its dotted path', () => {
    expect(findNulCharacter({ name: 'a\u0000b' })).toBe('name');
    expect(findNulCharacter({ list: [{ ok: 'x' }, { name: ['y', '\u0000'] }] })).toBe('list.1.name.1');
    expect(findNulCharacter({ ['bad\u0000key']: 1 })).toBe('bad\\u0000key');
    expect(findNulCharacter('<xml>\u0000</xml>')).toBe('body');
    // A query parameter with an empty name (`?=%00`) is named as sent, not as the body.
    expect(findNulCharacter({ '': '\u0000' })).toBe('');
  });

  it('passes everything else, control characters other than NUL included', () => {
    expect(findNulCharacter(undefined)).toBeUndefined();
    expect(findNulCharacter(null)).toBeUndefined();
    expect(
      findNulCharacter({ a: 1, b: true, c: null, d: ['x\ty', 'é'], e: { f: 'line\nbreak' } }),
    ).toBeUndefined();
    expect(findNulCharacter(Buffer.from([0]))).toBeUndefined();
  });
});
