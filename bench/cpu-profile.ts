// npx tsx bench/cpu-profile.ts <file.cpuprofile> [--top N]
//
// A summary of a V8 CPU profile (node --cpu-prof; for the server: BENCH_SERVER_NODE_ARGS='--cpu-prof
// --cpu-prof-dir=DIR' npm run bench -- --only rips): the functions by self time, and the time by source file
// (src/…, node_modules/<package>, node: internals), so that where a request's time goes reads in a terminal.

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '30' } }, allowPositionals: true });
const file = positionals[0];
if (!file) {
  console.error('Uso: npx tsx bench/cpu-profile.ts <archivo.cpuprofile> [--top N]');
  process.exit(1);
}
const top = Number(values.top);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));

/** Where a frame's code lives: the project's file, a package, or Node's own. */
function placeOf(url: string): string {
  if (url === '') return '(native)';
  if (url.startsWith('node:')) return 'node:';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return `node_modules/${rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const src = url.search(/\/(src|bench|dist)\//);
  return src >= 0 ? url.slice(src + 1) : url;
}

const selfUs = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i]!;
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const total = profile.endTime - profile.startTime;
const byFunction = new Map<string, number>();
const byPlace = new Map<string, number>();
let idle = 0;
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  if (functionName === '(idle)') idle += us;
  const key = `${functionName || '(anonymous)'}  ${placeOf(url)}${url ? `:${lineNumber + 1}` : ''}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  byPlace.set(placeOf(url), (byPlace.get(placeOf(url)) ?? 0) + us);
}
const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%`;
console.log(`${file}: ${(total / 1e6).toFixed(2)} s profiled, ${(idle / 1e6).toFixed(2)} s idle`);
console.log('\nBy self time:');
for (const [k, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)}  ${k}`);
console.log('\nBy place:');
for (const [k, us] of [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)}  ${k}`);

// Inclusive time of the project's functions (what each costs with everything it calls), counted once per stack.
const inclusive = new Map<string, number>();
const root = profile.nodes[0]!;
function walk(node: ProfileNode, onStack: Set<string>): number {
  let us = selfUs.get(node.id) ?? 0;
  const { functionName, url, lineNumber } = node.callFrame;
  const place = placeOf(url);
  const key = place.startsWith('src/') ? `${functionName || '(anonymous)'}  ${place}:${lineNumber + 1}` : null;
  const fresh = key !== null && !onStack.has(key);
  if (fresh) onStack.add(key);
  for (const c of node.children ?? []) us += walk(byId.get(c)!, onStack);
  if (fresh) {
    onStack.delete(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
  return us;
}
walk(root, new Set());
console.log('\nProject functions, inclusive:');
for (const [k, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)}  ${k}`);
