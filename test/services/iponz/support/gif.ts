/**
 * A GIF decoder for the tests (the first image, its colour indices): the standard variable-width LZW,
 * written from the format's specification, independent of the encoder under test.
 */
export interface DecodedGif {
  width: number;
  height: number;
  /** One colour index per pixel, row by row. */
  indices: Uint8Array;
  palette: Buffer;
}

export function decodeGif(bytes: Buffer): DecodedGif {
  if (bytes.subarray(0, 6).toString('latin1') !== 'GIF89a') throw new Error('not a GIF89a');
  const width = bytes.readUInt16LE(6);
  const height = bytes.readUInt16LE(8);
  const packed = bytes[10]!;
  let at = 13;
  const paletteSize = packed & 0x80 ? 3 * 2 ** ((packed & 7) + 1) : 0;
  const palette = bytes.subarray(at, at + paletteSize);
  at += paletteSize;
  while (bytes[at] === 0x21) {
    at += 2;
    while (bytes[at]! > 0) at += bytes[at]! + 1;
    at += 1;
  }
  if (bytes[at] !== 0x2c) throw new Error('no image descriptor');
  at += 10;
  const minCodeSize = bytes[at++]!;
  const chunks: Buffer[] = [];
  while (bytes[at]! > 0) {
    chunks.push(bytes.subarray(at + 1, at + 1 + bytes[at]!));
    at += bytes[at]! + 1;
  }
  if (bytes[at + 1] !== 0x3b) throw new Error('no trailer after the image');
  const data = Buffer.concat(chunks);
  const clear = 1 << minCodeSize;
  const end = clear + 1;
  const out: number[] = [];
  let table: number[][] = [];
  const reset = () => {
    table = Array.from({ length: clear + 2 }, (_, i) => [i]);
  };
  reset();
  let size = minCodeSize + 1;
  let previous: number[] | undefined;
  let bit = 0;
  for (;;) {
    let code = 0;
    for (let i = 0; i < size; i++, bit++) code |= ((data[bit >> 3]! >> (bit & 7)) & 1) << i;
    if (code === clear) {
      reset();
      size = minCodeSize + 1;
      previous = undefined;
      continue;
    }
    if (code === end) break;
    let entry = table[code];
    if (!entry) {
      if (!previous || code !== table.length) throw new Error(`bad code ${code}`);
      entry = [...previous, previous[0]!];
    }
    out.push(...entry);
    if (previous) table.push([...previous, entry[0]!]);
    previous = entry;
    if (table.length === 1 << size && size < 12) size++;
  }
  if (out.length !== width * height) throw new Error(`${out.length} pixels for ${width}×${height}`);
  return { width, height, indices: Uint8Array.from(out), palette };
}
