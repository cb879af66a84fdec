import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FLAGS = '--min-semi-space-size=16';

// The young generation's floor (README, Operations, "Node flags"): every way the gateway is started
// gives node the same flags, and the benchmarks start their servers with them too.
describe('node flags', () => {
  it('bin/rsg.js, npm start and the benchmarks’ servers use the same ones', async () => {
    const bin = readFileSync(path.join(root, 'bin/rsg.js'), 'utf8').split('\n')[0];
    expect(bin).toBe(`#!/usr/bin/env -S node ${FLAGS}`);
    const scripts = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;
    expect(scripts.start).toBe(`node ${FLAGS} bin/rsg.js start`);
    // The import benchmarks measure `rsg import` in their own process too.
    for (const register of ['nzbn', 'ppsr', 'disclose', 'iponz']) {
      expect(scripts[`bench:import-${register}`]).toMatch(new RegExp(`^node ${FLAGS} `));
    }
    const previous = process.env.BENCH_SERVER_NODE_ARGS;
    delete process.env.BENCH_SERVER_NODE_ARGS;
    try {
      const { SERVER_NODE_ARGS } = await import('../../bench/support.ts');
      expect(SERVER_NODE_ARGS.join(' ')).toBe(FLAGS);
    } finally {
      if (previous !== undefined) process.env.BENCH_SERVER_NODE_ARGS = previous;
    }
  });
});
