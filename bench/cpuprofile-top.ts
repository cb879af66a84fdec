import { readFileSync } from 'node:fs';

/**
 * The top self times of a `node --cpu-prof` profile, by function and by file, so a profile can be read
 * without a browser:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/nzbn-read.ts
 *   node --import tsx bench/cpuprofile-top.ts /tmp/prof/CPU.….cpuprofile [rows=40] [filter]
 *
 * A filter keeps only samples whose stack passes through a function or file containing that text
 * (for instance `read.ts`), and then also shows inclusive times. `PROFILE_SKIP_MS=<ms>` leaves out the
 * profile's first milliseconds (a server's start and warm-up), so the table is about the steady load.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, rowsText = '40', filter] = process.argv.slice(2);
if (!file) throw new Error('usage: cpuprofile-top.ts <file.cpuprofile> [rows] [filter]');
const rows = Number(rowsText);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const label = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url
    ? `${url.replace(/^file:\/\//, '').replace(/.*\/node_modules\//, '~/')}:${lineNumber + 1}`
    : '';
  return `${functionName || '(anonymous)'} ${where}`.trim();
};
const fileOf = (node: ProfileNode) =>
  node.callFrame.url.replace(/^file:\/\//, '').replace(/.*\/node_modules\//, '~/') ||
  `(${node.callFrame.functionName})`;

const self = new Map<string, number>();
const files = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
let kept = 0;
// PROFILE_SKIP_MS: leave out the samples of the profile's first milliseconds (a server's start, a warm-up).
const skipMicros = Number(process.env.PROFILE_SKIP_MS ?? 0) * 1000;
let elapsed = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0;
  elapsed += dt;
  if (elapsed < skipMicros) continue;
  total += dt;
  const leaf = byId.get(profile.samples[i]!)!;
  const stack: ProfileNode[] = [];
  for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) stack.push(byId.get(id)!);
  if (filter && !stack.some((node) => label(node).includes(filter))) continue;
  kept += dt;
  self.set(label(leaf), (self.get(label(leaf)) ?? 0) + dt);
  files.set(fileOf(leaf), (files.get(fileOf(leaf)) ?? 0) + dt);
  for (const name of new Set(stack.map(label))) inclusive.set(name, (inclusive.get(name) ?? 0) + dt);
}

const show = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [name, time] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(
      `${(time / 1000).toFixed(1).padStart(9)} ms ${((100 * time) / kept).toFixed(1).padStart(5)}%  ${name}`,
    );
  }
};
console.log(
  `${(total / 1000).toFixed(0)} ms sampled${filter ? `, ${(kept / 1000).toFixed(0)} ms through "${filter}"` : ''}`,
);
show('self time by function', self);
show('self time by file', files);
if (filter) show('inclusive time', inclusive);
