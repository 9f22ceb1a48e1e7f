#!/usr/bin/env node
// Builds only what changed since the last successful build, so `npm start`,
// `npm run seed` and the other scripts start at once when nothing did:
//   node scripts/build-if-stale.mjs          build the server and/or the dashboard if stale
//   node scripts/build-if-stale.mjs --force  build both (npm run build)
// A part is stale when its output is missing (a fresh clone) or when a file
// it is built from is newer than the stamp written after its last build. The
// stamp holds the time the build started, so a file saved during a build
// makes the next run build again. Says what it builds on stderr; nothing when
// all is up to date.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamps = path.join(root, 'dist/.build-stamps');
const shared = ['package.json', 'package-lock.json', 'tsconfig.json'];

const parts = [
  {
    name: 'server',
    inputs: ['src', 'seeds', 'ormconfig.ts', 'tsconfig.build.json', ...shared],
    // Unit tests sit beside the code but are not part of the build.
    skip: (file) => file.endsWith('.test.ts'),
    output: 'dist/src/main.js',
    command: [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
  },
  {
    name: 'dashboard',
    inputs: ['web', ...shared],
    skip: () => false,
    output: 'dist/web/index.html',
    command: [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts'],
  },
];

/** The newest modification time (ms) of a file or of any file under a folder; 0 when it does not exist. */
function newest(target, skip) {
  let stat;
  try {
    stat = fs.statSync(target);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return skip(target) ? 0 : stat.mtimeMs;
  let latest = stat.mtimeMs; // a deleted file shows only as its folder's change
  for (const entry of fs.readdirSync(target)) latest = Math.max(latest, newest(path.join(target, entry), skip));
  return latest;
}

function builtAt(part) {
  try {
    return Number(fs.readFileSync(path.join(stamps, part.name), 'utf8'));
  } catch {
    return 0;
  }
}

function staleness(part) {
  if (!fs.existsSync(path.join(root, part.output))) return `${part.output} is missing`;
  const stamp = builtAt(part);
  if (!stamp) return 'no record of its last build';
  const changed = newest(path.join(root, part.inputs[0]), part.skip);
  const latest = Math.max(changed, ...part.inputs.slice(1).map((input) => newest(path.join(root, input), part.skip)));
  return latest > stamp ? 'its sources changed' : null;
}

const force = process.argv.includes('--force');
for (const part of parts) {
  const why = force ? 'asked to' : staleness(part);
  if (!why) continue;
  process.stderr.write(`building the ${part.name} (${why})\n`);
  const started = Date.now();
  const result = spawnSync(process.execPath, part.command, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    // No stamp: the next run tries again.
    fs.rmSync(path.join(stamps, part.name), { force: true });
    process.exit(result.status ?? 1);
  }
  fs.mkdirSync(stamps, { recursive: true });
  fs.writeFileSync(path.join(stamps, part.name), String(started));
}
