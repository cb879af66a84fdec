import { describe, expect, it } from 'vitest';
import {
  findInvalidUrlEncoded,
  findLoneSurrogate,
  findNulCharacter,
  firstInvalidUtf8,
} from '../../src/platform/http/input-text.ts';

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

describe('lone surrogates', () => {
  it('names the string or key that holds an unpaired half, and passes pairs', () => {
    expect(findLoneSurrogate({ entityName: 'a\ud800' })).toBe('entityName');
    expect(findLoneSurrogate({ addresses: [{ address1: 'ok' }, { address1: '\udfff' }] })).toBe(
      'addresses.1.address1',
    );
    // A high half followed by something other than a low half, and a pair written backwards.
    expect(findLoneSurrogate({ a: '\ud800A' })).toBe('a');
    expect(findLoneSurrogate({ a: '\udc00\ud800' })).toBe('a');
    expect(findLoneSurrogate({ ['k\ud800']: 1 })).toBe('k\\ud800');
    expect(findLoneSurrogate({ a: '😀 \ud83d\ude00', b: ['é', '𝄞'] })).toBeUndefined();
  });
});

describe('bytes that are not UTF-8', () => {
  const cases: [string, number[], number][] = [
    ['a continuation byte missing', [0x61, 0xc3, 0x28], 1],
    ['0xFF', [0xff], 0],
    ['an overlong slash', [0x41, 0xc0, 0xaf], 1],
    ['an overlong three-byte form', [0xe0, 0x80, 0xaf], 0],
    ['an encoded surrogate', [0x41, 0x42, 0xed, 0xa0, 0x80], 2],
    ['above U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
    ['a stray continuation byte', [0xe2, 0x82, 0xac, 0x80], 3],
    ['a truncated sequence at the end', [0x61, 0x62, 0xe2, 0x82], 2],
  ];
  it.each(cases)('finds the first bad byte: %s', (_name, bytes, offset) => {
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes))).toThrow();
    expect(firstInvalidUtf8(Uint8Array.from(bytes))).toBe(offset);
  });
  it('passes UTF-8 of every length', () => {
    expect(firstInvalidUtf8(Buffer.from('a é € 𝄞 \u{10FFFF} \ud7ff \ue000'))).toBe(-1);
  });

  it('names the %-encoded parameter of a query string or form', () => {
    expect(findInvalidUrlEncoded('search-term=%C3%28')).toBe('search-term');
    expect(findInvalidUrlEncoded('a=1&b=%ED%A0%80&c=%FF')).toBe('b');
    expect(findInvalidUrlEncoded('ok=%C3%A9&name+two=%C0%AF')).toBe('name two');
    // A bad name is named as sent.
    expect(findInvalidUrlEncoded('%FF=1')).toBe('%FF');
    // Valid text, malformed escapes (kept as sent by the parser) and plain ASCII pass.
    expect(findInvalidUrlEncoded('a=%C3%A9%F0%9D%84%9E&b=%ZZ&c=100%')).toBeUndefined();
    expect(findInvalidUrlEncoded('page=1&page-size=10')).toBeUndefined();
  });
});
