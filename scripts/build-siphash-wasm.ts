import { writeFileSync } from 'node:fs';
import { siphashWasmModuleSource } from './siphash-wasm-source.ts';

/**
 * `npm run build:siphash`: assembles the WebAssembly SipHash (src/services/market-rent/engine/
 * siphash-wat.ts) into siphash-wasm.ts, the module's bytes in base64, which the service loads at run
 * time (no assembler there). test/services/market-rent/siphash-wasm.test.ts assembles it again and
 * fails when the two differ, so the bytes cannot drift from their source.
 */
const target = new URL('../src/services/market-rent/engine/siphash-wasm.ts', import.meta.url);
writeFileSync(target, await siphashWasmModuleSource());
process.stdout.write(`wrote ${target.pathname}\n`);
