/**
 * Prints where a CPU profile spent its time: the top functions by self time,
 * and by total time grouped per package or project folder.
 *
 *   node test/bench/profile-summary.ts <file.cpuprofile> [rows]
 */
import { readFileSync } from 'node:fs';

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

const file = process.argv[2];
if (file === undefined) throw new Error('usage: profile-summary.ts <file.cpuprofile> [rows]');
const rows = Number(process.argv[3] ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes)
  for (const child of node.children ?? []) parent.set(child, node.id);

const self = new Map<number, number>();
profile.samples.forEach((id, i) => {
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...self.values()].reduce((a, b) => a + b, 0);

const where = (url: string): string => {
  if (url === '') return '(native/vm)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules?.[1] !== undefined) return modules[1];
  if (url.startsWith('node:')) return url;
  const project = /\/(src\/[^/]+|test\/[^/]+)/.exec(url);
  return project?.[1] ?? url;
};
const label = (node: ProfileNode): string =>
  `${node.callFrame.functionName || '(anonymous)'} ${where(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;

const selfByLabel = new Map<string, number>();
for (const [id, time] of self) {
  const node = byId.get(id);
  if (node === undefined) continue;
  const key = label(node);
  selfByLabel.set(key, (selfByLabel.get(key) ?? 0) + time);
}

// inclusive time per place: each sample counts once per distinct place on its stack
const inclusive = new Map<string, number>();
for (const [id, time] of self) {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const node = byId.get(at);
    if (node === undefined) break;
    seen.add(where(node.callFrame.url));
  }
  for (const place of seen) inclusive.set(place, (inclusive.get(place) ?? 0) + time);
}

const pct = (time: number): string => `${((time / total) * 100).toFixed(1).padStart(5)}%`;
console.log(`total ${(total / 1000).toFixed(0)} ms of samples\n\nself time:`);
for (const [key, time] of [...selfByLabel].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
  console.log(`${pct(time)}  ${key}`);
}
console.log('\ninclusive time by package or folder:');
for (const [key, time] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
  console.log(`${pct(time)}  ${key}`);
}
