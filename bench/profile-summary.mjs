#!/usr/bin/env node
/**
 * What a V8 CPU profile (.cpuprofile) spent its time on, by where the code
 * lives: each npm package, each folder of the server's own code, Node's
 * internals, garbage collection. Idle time, and the profiler's own stop (its
 * samples while it serializes the profile), are left out of the shares.
 *
 *   node bench/profile-summary.mjs <file.cpuprofile> [--functions 15]
 *
 * `npm run bench -- --profile` writes one profile per workload and keeps
 * this summary of each in its results file.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where a frame's code lives, as one short name. */
function placeOf(frame) {
  const { url, functionName } = frame;
  if (!url) {
    if (functionName === '(garbage collector)') return 'garbage collection';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return 'V8 and native code';
    return 'native code';
  }
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const [first, second] = url.slice(modules + '/node_modules/'.length).split('/');
    return first.startsWith('@') ? `${first}/${second}` : first;
  }
  if (url.startsWith('node:')) return 'node internals';
  const own = url.match(/\/dist\/src\/(?:(.+)\/)?[^/]+$/);
  if (own) return `taskbase ${own[1] ?? '(root)'}`;
  return url.replace(/^file:\/\//, '');
}

/**
 * The nodes under the profiler's own stop (src/server/bench-probe.ts answering
 * `profile-stop` through the inspector): the samples taken while it
 * serializes the profile are the measuring, not the server's work.
 */
function profilerNodes(profile, byId) {
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const own = new Map();
  const isOwn = (id) => {
    if (own.has(id)) return own.get(id);
    const node = byId.get(id);
    const result = node.callFrame.url.endsWith('/bench-probe.js') || (parent.has(id) && isOwn(parent.get(id)));
    own.set(id, result);
    return result;
  };
  return new Set(profile.nodes.filter((node) => isOwn(node.id)).map((node) => node.id));
}

/** Self time by place and by function, in ms, idle and the profiler's own work left out. */
export function summarize(profile, { functions = 15 } = {}) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const profiler = profilerNodes(profile, byId);
  const self = new Map();
  const deltas = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const id = profile.samples[i];
    if (profiler.has(id)) continue;
    self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0));
  }
  const places = new Map();
  const fns = new Map();
  let total = 0;
  for (const [id, micros] of self) {
    const frame = byId.get(id).callFrame;
    const place = placeOf(frame);
    if (place === 'idle') continue;
    total += micros;
    places.set(place, (places.get(place) ?? 0) + micros);
    const fn = `${frame.functionName || '(anonymous)'} (${place}${frame.url ? `:${frame.lineNumber + 1}` : ''})`;
    fns.set(fn, (fns.get(fn) ?? 0) + micros);
  }
  const rank = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n)
    .map(([name, micros]) => ({ name, ms: Math.round(micros / 1000), share: total ? micros / total : 0 }));
  return { busyMs: Math.round(total / 1000), places: rank(places, 20), functions: rank(fns, functions) };
}

export function formatSummary(summary, indent = '') {
  const pct = (share) => `${(share * 100).toFixed(1).padStart(5)} %`;
  return [
    `${indent}busy ${summary.busyMs} ms; by place:`,
    ...summary.places.slice(0, 12).map((p) => `${indent}  ${pct(p.share)}  ${p.name}`),
    `${indent}heaviest functions (self time):`,
    ...summary.functions.map((f) => `${indent}  ${pct(f.share)}  ${f.name}`),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, flag, n] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node bench/profile-summary.mjs <file.cpuprofile> [--functions 15]\n');
    process.exit(2);
  }
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  process.stdout.write(`${formatSummary(summarize(profile, { functions: flag === '--functions' ? Number(n) : 15 }))}\n`);
}
