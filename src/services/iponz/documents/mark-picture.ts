/**
 * A picture of a trade mark for the sandbox (ours): the mark's title drawn in a 5×7 pixel font, dark on
 * light, as a GIF89a (a format the register publishes for images). The same title gives the same bytes.
 * The image data is LZW with a clear code before the table grows (every code 8 bits wide), which every
 * GIF decoder reads; small marks make small files (a 30-character title is about 20 KB).
 */

/** Columns of each glyph, 5 per character, bit 0 the top row (the classic 5×7 font). */
const FONT: Record<string, number[]> = {
  ' ': [0, 0, 0, 0, 0],
  A: [0x7e, 0x11, 0x11, 0x11, 0x7e],
  B: [0x7f, 0x49, 0x49, 0x49, 0x36],
  C: [0x3e, 0x41, 0x41, 0x41, 0x22],
  D: [0x7f, 0x41, 0x41, 0x22, 0x1c],
  E: [0x7f, 0x49, 0x49, 0x49, 0x41],
  F: [0x7f, 0x09, 0x09, 0x09, 0x01],
  G: [0x3e, 0x41, 0x49, 0x49, 0x7a],
  H: [0x7f, 0x08, 0x08, 0x08, 0x7f],
  I: [0x00, 0x41, 0x7f, 0x41, 0x00],
  J: [0x20, 0x40, 0x41, 0x3f, 0x01],
  K: [0x7f, 0x08, 0x14, 0x22, 0x41],
  L: [0x7f, 0x40, 0x40, 0x40, 0x40],
  M: [0x7f, 0x02, 0x0c, 0x02, 0x7f],
  N: [0x7f, 0x04, 0x08, 0x10, 0x7f],
  O: [0x3e, 0x41, 0x41, 0x41, 0x3e],
  P: [0x7f, 0x09, 0x09, 0x09, 0x06],
  Q: [0x3e, 0x41, 0x51, 0x21, 0x5e],
  R: [0x7f, 0x09, 0x19, 0x29, 0x46],
  S: [0x46, 0x49, 0x49, 0x49, 0x31],
  T: [0x01, 0x01, 0x7f, 0x01, 0x01],
  U: [0x3f, 0x40, 0x40, 0x40, 0x3f],
  V: [0x1f, 0x20, 0x40, 0x20, 0x1f],
  W: [0x3f, 0x40, 0x38, 0x40, 0x3f],
  X: [0x63, 0x14, 0x08, 0x14, 0x63],
  Y: [0x07, 0x08, 0x70, 0x08, 0x07],
  Z: [0x61, 0x51, 0x49, 0x45, 0x43],
  '0': [0x3e, 0x51, 0x49, 0x45, 0x3e],
  '1': [0x00, 0x42, 0x7f, 0x40, 0x00],
  '2': [0x42, 0x61, 0x51, 0x49, 0x46],
  '3': [0x21, 0x41, 0x45, 0x4b, 0x31],
  '4': [0x18, 0x14, 0x12, 0x7f, 0x10],
  '5': [0x27, 0x45, 0x45, 0x45, 0x39],
  '6': [0x3c, 0x4a, 0x49, 0x49, 0x30],
  '7': [0x01, 0x71, 0x09, 0x05, 0x03],
  '8': [0x36, 0x49, 0x49, 0x49, 0x36],
  '9': [0x06, 0x49, 0x49, 0x29, 0x1e],
  '-': [0x08, 0x08, 0x08, 0x08, 0x08],
  '.': [0x00, 0x60, 0x60, 0x00, 0x00],
  '&': [0x36, 0x49, 0x55, 0x22, 0x50],
  "'": [0x00, 0x05, 0x03, 0x00, 0x00],
  '!': [0x00, 0x00, 0x5f, 0x00, 0x00],
  '?': [0x02, 0x01, 0x51, 0x09, 0x06],
};
const SCALE = 3;
const MARGIN = 4 * SCALE;
const MAX_CHARACTERS = 40;

/** The glyphs a title is drawn with: letters folded to capitals and their accents dropped; others a `?`. */
export function markGlyphs(title: string): string[] {
  const plain = title.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase();
  return [...plain.slice(0, MAX_CHARACTERS)].map((c) => (FONT[c] ? c : '?'));
}

/** The title's pixels, row by row: 1 ink, 0 paper. */
export function markPixels(title: string): { width: number; height: number; pixels: Uint8Array } {
  const glyphs = markGlyphs(title.trim() || '?');
  const width = glyphs.length * 6 * SCALE - SCALE + 2 * MARGIN;
  const height = 7 * SCALE + 2 * MARGIN;
  const pixels = new Uint8Array(width * height);
  glyphs.forEach((glyph, index) => {
    FONT[glyph]!.forEach((column, x) => {
      for (let y = 0; y < 7; y++) {
        if (!((column >> y) & 1)) continue;
        for (let dy = 0; dy < SCALE; dy++)
          for (let dx = 0; dx < SCALE; dx++) {
            const px = MARGIN + (index * 6 + x) * SCALE + dx;
            pixels[(MARGIN + y * SCALE + dy) * width + px] = 1;
          }
      }
    });
  });
  return { width, height, pixels };
}

/** The GIF89a of a mark's title. */
export function markPicture(title: string): Buffer {
  const { width, height, pixels } = markPixels(title);
  // A 128-colour table (7-bit codes + clear + end: 8-bit codes); colour 0 paper, 1 ink.
  const palette = Buffer.alloc(128 * 3, 0xff);
  palette.set([0xfa, 0xf7, 0xf0, 0x1b, 0x3a, 0x5c], 0);
  const CLEAR = 128;
  const END = 129;
  const codes: number[] = [];
  for (let i = 0; i < pixels.length; i++) {
    // The decoder's table grows by one per code after the first; a clear before it needs 9 bits.
    if (i % 126 === 0) codes.push(CLEAR);
    codes.push(pixels[i]!);
  }
  codes.push(END);
  const data = Buffer.from(codes);
  const blocks: Buffer[] = [];
  for (let offset = 0; offset < data.length; offset += 255) {
    const piece = data.subarray(offset, offset + 255);
    blocks.push(Buffer.from([piece.length]), piece);
  }
  const word = (n: number) => [n & 0xff, n >> 8];
  return Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    Buffer.from([...word(width), ...word(height), 0xf6, 0x00, 0x00]),
    palette,
    Buffer.from([0x2c, 0, 0, 0, 0, ...word(width), ...word(height), 0x00, 0x07]),
    ...blocks,
    Buffer.from([0x00, 0x3b]),
  ]);
}
