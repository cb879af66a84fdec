/**
 * The WebAssembly text of SipHash-2-4 for the rows of an answer (row-uniforms.ts, `sipRowUniforms`): the same
 * function as `sipHash24Into`, on native 64-bit integers instead of pairs of 32-bit halves (about a
 * tenth of a national answer's work in JavaScript). Written here as TypeScript that prints the text, so
 * a round is written once and repeated where it is used (locals, not calls or globals, keep the state in
 * registers). `npm run build:siphash` assembles it into siphash-wasm.ts; a test checks the two agree.
 *
 * Memory (one page, never grown), byte offsets:
 * - KEY: k0 and k1 (little-endian 64-bit words, as SipHash reads its 16-byte key);
 * - OUT: the 64-bit hash of the last message;
 * - STATE: v0 … v3 after the whole 8-byte blocks of the kept prefix; PREFIX: its length (0: none);
 * - MSG: the message (up to CAPACITY bytes); KEPT: a copy of the prefix whose state STATE holds.
 */
export const SIP_LAYOUT = {
  KEY: 0,
  OUT: 16,
  STATE: 32,
  PREFIX: 64,
  MSG: 1024,
  KEPT: 1024 + 16_384,
  CAPACITY: 16_384,
} as const;

const { KEY, OUT, STATE, PREFIX, MSG, KEPT } = SIP_LAYOUT;

const get = (name: string) => `(local.get $${name})`;
const set = (name: string, value: string) => `(local.set $${name} ${value})`;
const i64 = (op: string, a: string, b: string) => `(i64.${op} ${a} ${b})`;
const rotl = (name: string, bits: number) => i64('rotl', get(name), `(i64.const ${bits})`);

/** One SipRound on the locals v0 … v3. */
const ROUND = [
  set('v0', i64('add', get('v0'), get('v1'))),
  set('v1', i64('xor', rotl('v1', 13), get('v0'))),
  set('v0', rotl('v0', 32)),
  set('v2', i64('add', get('v2'), get('v3'))),
  set('v3', i64('xor', rotl('v3', 16), get('v2'))),
  set('v0', i64('add', get('v0'), get('v3'))),
  set('v3', i64('xor', rotl('v3', 21), get('v0'))),
  set('v2', i64('add', get('v2'), get('v1'))),
  set('v1', i64('xor', rotl('v1', 17), get('v2'))),
  set('v2', rotl('v2', 32)),
].join('\n');

/** Absorbs the block in local m: v3 ^= m, two rounds, v0 ^= m. */
const COMPRESS = [
  set('v3', i64('xor', get('v3'), get('m'))),
  ROUND,
  ROUND,
  set('v0', i64('xor', get('v0'), get('m'))),
].join('\n');

/** v0 … v3 from the key. */
const INIT = [
  set('v0', i64('xor', `(i64.load (i32.const ${KEY}))`, '(i64.const 0x736f6d6570736575)')),
  set('v1', i64('xor', `(i64.load (i32.const ${KEY + 8}))`, '(i64.const 0x646f72616e646f6d)')),
  set('v2', i64('xor', `(i64.load (i32.const ${KEY}))`, '(i64.const 0x6c7967656e657261)')),
  set('v3', i64('xor', `(i64.load (i32.const ${KEY + 8}))`, '(i64.const 0x7465646279746573)')),
].join('\n');

/** Absorbs the whole blocks of MSG from byte i (a local) up to byte `end` (a local), i advancing. */
const BLOCKS = (end: string) => `
(block $blocks_done
  (loop $blocks
    (br_if $blocks_done (i32.ge_u ${get('i')} ${get(end)}))
    ${set('m', `(i64.load offset=${MSG} ${get('i')})`)}
    ${COMPRESS}
    ${set('i', `(i32.add ${get('i')} (i32.const 8))`)}
    (br $blocks)))`;

const stateWord = (k: number) => `(i32.const ${STATE + 8 * k})`;

/**
 * `row(len, whole)`: the SipHash of MSG[0 … len − 1] into OUT. With whole ≥ 16 (a multiple of 8), the
 * message's first `whole` bytes are a prefix the next messages share: when they are the kept prefix,
 * hashing resumes from its state; otherwise their state is taken and kept first.
 */
export function siphashWat(): string {
  return `(module
(memory (export "memory") 1)
(func (export "row") (param $len i32) (param $whole i32)
  (local $v0 i64) (local $v1 i64) (local $v2 i64) (local $v3 i64) (local $m i64)
  (local $i i32) (local $end i32) (local $same i32) (local $rem i32)
  ${set('end', `(i32.and ${get('len')} (i32.const -8))`)}
  (if (i32.ge_u ${get('whole')} (i32.const 16))
    (then
      ;; Is the kept prefix this message's first \`whole\` bytes?
      ${set('same', `(i32.eq ${get('whole')} (i32.load (i32.const ${PREFIX})))`)}
      ${set('i', '(i32.const 0)')}
      (block $compare_done
        (loop $compare
          (br_if $compare_done (i32.eqz ${get('same')}))
          (br_if $compare_done (i32.ge_u ${get('i')} ${get('whole')}))
          ${set('same', `(i64.eq (i64.load offset=${MSG} ${get('i')}) (i64.load offset=${KEPT} ${get('i')}))`)}
          ${set('i', `(i32.add ${get('i')} (i32.const 8))`)}
          (br $compare)))
      (if (i32.eqz ${get('same')})
        (then
          ;; Take the prefix's state: its whole blocks from the key, kept with a copy of its bytes.
          ${INIT}
          ${set('i', '(i32.const 0)')}
          ${BLOCKS('whole')}
          (i64.store ${stateWord(0)} ${get('v0')})
          (i64.store ${stateWord(1)} ${get('v1')})
          (i64.store ${stateWord(2)} ${get('v2')})
          (i64.store ${stateWord(3)} ${get('v3')})
          ${set('i', '(i32.const 0)')}
          (block $copy_done
            (loop $copy
              (br_if $copy_done (i32.ge_u ${get('i')} ${get('whole')}))
              (i64.store offset=${KEPT} ${get('i')} (i64.load offset=${MSG} ${get('i')}))
              ${set('i', `(i32.add ${get('i')} (i32.const 8))`)}
              (br $copy)))
          (i32.store (i32.const ${PREFIX}) ${get('whole')})))
      ${set('v0', `(i64.load ${stateWord(0)})`)}
      ${set('v1', `(i64.load ${stateWord(1)})`)}
      ${set('v2', `(i64.load ${stateWord(2)})`)}
      ${set('v3', `(i64.load ${stateWord(3)})`)}
      ${set('i', get('whole'))})
    (else
      ${INIT}
      ${set('i', '(i32.const 0)')}))
  ${BLOCKS('end')}
  ;; The last block: the remaining bytes (those after them masked off) and the length in the top byte.
  ${set('rem', `(i32.and ${get('len')} (i32.const 7))`)}
  ${set(
    'm',
    `(i64.or
      (i64.and (i64.load offset=${MSG} ${get('end')})
        (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (i32.shl ${get('rem')} (i32.const 3)))) (i64.const 1)))
      (i64.shl (i64.extend_i32_u (i32.and ${get('len')} (i32.const 255))) (i64.const 56)))`,
  )}
  ${COMPRESS}
  ${set('v2', i64('xor', get('v2'), '(i64.const 255)'))}
  ${ROUND}
  ${ROUND}
  ${ROUND}
  ${ROUND}
  (i64.store (i32.const ${OUT})
    (i64.xor (i64.xor ${get('v0')} ${get('v1')}) (i64.xor ${get('v2')} ${get('v3')}))))
)
`;
}
