#!/usr/bin/env node
// Lists the folder-level import arrows of src/ and checks the house's layers:
// domain ← db ← services ← http ← graphql | mcp ← server, with no
// cycle between folders and no arrow running back up. Each folder of
// src/services/ is a room of its own; every other folder of src/ is one room
// (src/graphql/resolvers belongs to graphql); a file at src/'s top is a room
// named after the file. `node scripts/import-arrows.mjs` prints the arrows and
// the check, and exits 1 when the check fails; test/operations/architecture.test.ts runs
// the same check.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The layer of each room, lowest first: an arrow may only point to a room of
 * the same or a lower layer. The kernel is the services' floor (with the
 * change log, feed and events in kernel/changes/); http/ is the edge that
 * graphql/ and mcp/ share (origins, auth, socket and subscription limits);
 * server/ and the files at src/'s top (cli, serve, config, ...) wire the
 * layers together.
 */
const LAYERS = { domain: 0, db: 1, 'services/kernel': 2, services: 3, http: 4, graphql: 5, mcp: 5, server: 6 };
const BASE_FILES = ['logger.ts', 'environment.ts'];

/**
 * Arrows allowed to run the wrong way for now, as "from → to"; the check lets
 * exactly these through, and says so when one is gone. None today.
 */
export const KNOWN_EXCEPTIONS = [];

/** The room a src/ file belongs to, e.g. "services/tasks", "graphql", "server.ts". */
export function roomOf(relative) {
  const parts = relative.split('/');
  if (parts[0] !== 'src') return null;
  if (parts.length === 2) return parts[1].replace(/\.js$/, '.ts');
  if (parts[1] === 'services') return parts.length === 3 ? 'services' : `services/${parts[2]}`;
  return parts[1];
}

export function layerOf(room) {
  if (room === 'services/kernel') return LAYERS['services/kernel'];
  const folder = room.split('/')[0];
  if (folder in LAYERS) return LAYERS[folder];
  if (BASE_FILES.includes(room)) return LAYERS.domain;
  return LAYERS.server;
}

function sourceFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.ts$/.test(entry.name) && !/\.(test|d)\.ts$/.test(entry.name)) out.push(full);
  }
  return out;
}

/** Every relative import or export-from specifier of a file, static or dynamic (comments stripped). */
function specifiers(text) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s*)['"](\.[^'"]+)['"]/gm;
  for (const match of code.matchAll(pattern)) found.push(match[1]);
  return found;
}

/** The folder-level arrows: "from → to" with the files that make each one. */
export function importArrows(root = ROOT) {
  const arrows = new Map();
  for (const file of sourceFiles(path.join(root, 'src'))) {
    const from = roomOf(path.relative(root, file).split(path.sep).join('/'));
    for (const spec of specifiers(fs.readFileSync(file, 'utf8'))) {
      const target = path.relative(root, path.resolve(path.dirname(file), spec)).split(path.sep).join('/');
      const to = roomOf(target);
      if (!to || to === from) continue;
      const key = `${from} → ${to}`;
      if (!arrows.has(key)) arrows.set(key, { from, to, files: new Set() });
      arrows.get(key).files.add(path.relative(root, file));
    }
  }
  return [...arrows.values()].sort((a, b) => `${a.from} ${a.to}`.localeCompare(`${b.from} ${b.to}`));
}

const known = ({ from, to }) => KNOWN_EXCEPTIONS.includes(`${from} → ${to}`);

/** Cycles between rooms, apart from the known exceptions: each strongly connected set of more than one room (Tarjan). */
export function folderCycles(arrows) {
  const next = new Map();
  for (const { from, to } of arrows.filter((arrow) => !known(arrow))) {
    if (!next.has(from)) next.set(from, []);
    if (!next.has(to)) next.set(to, []);
    next.get(from).push(to);
  }
  let index = 0;
  const indices = new Map(), low = new Map(), stack = [], onStack = new Set(), cycles = [];
  const visit = (room) => {
    indices.set(room, index); low.set(room, index); index++;
    stack.push(room); onStack.add(room);
    for (const to of next.get(room)) {
      if (!indices.has(to)) { visit(to); low.set(room, Math.min(low.get(room), low.get(to))); }
      else if (onStack.has(to)) low.set(room, Math.min(low.get(room), indices.get(to)));
    }
    if (low.get(room) === indices.get(room)) {
      const set = [];
      let member;
      do { member = stack.pop(); onStack.delete(member); set.push(member); } while (member !== room);
      if (set.length > 1) cycles.push(set.sort());
    }
  };
  for (const room of next.keys()) if (!indices.has(room)) visit(room);
  return cycles;
}

/** Arrows from a lower layer to a higher one, apart from the known exceptions. */
export function arrowsBackUp(arrows) {
  return arrows.filter((arrow) => layerOf(arrow.to) > layerOf(arrow.from) && !known(arrow));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arrows = importArrows();
  for (const { from, to, files } of arrows) console.log(`${from} → ${to}  (${files.size} file${files.size === 1 ? '' : 's'})`);
  const cycles = folderCycles(arrows);
  const back = arrowsBackUp(arrows);
  console.log(`\n${arrows.length} arrows, ${cycles.length} cycles, ${back.length} arrows running back up`);
  for (const set of cycles) console.log(`cycle: ${set.join(' ↔ ')}`);
  for (const { from, to, files } of back) console.log(`back up: ${from} → ${to} (${[...files].join(', ')})`);
  const exceptions = KNOWN_EXCEPTIONS.filter((key) => arrows.some(({ from, to }) => `${from} → ${to}` === key));
  if (exceptions.length) console.log(`allowed for now: ${exceptions.join(', ')}`);
  process.exit(cycles.length || back.length ? 1 : 0);
}
