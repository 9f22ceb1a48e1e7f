import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's folder (where package.json is), whether this runs from src/ (tests) or dist/src/ (npm start, the installed package). */
export const PACKAGE_ROOT = (() => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.basename(path.dirname(here)) === 'dist' ? path.resolve(here, '../..') : path.resolve(here, '..');
})();

/**
 * Whether this runs from a clone of the repository (its folder has .git: a
 * clone, or a git worktree, whose .git is a file) rather than from an
 * installed package (npm install, npx), which never ships .git. The code's
 * own folder decides, not the folder it was started from: an MCP client
 * starts `taskbase mcp` wherever it likes.
 */
export function runsFromAClone(root = PACKAGE_ROOT): boolean {
  return fs.existsSync(path.join(root, '.git'));
}

/**
 * The SQLite database when DATABASE_URL is not given. In a clone,
 * data/taskbase.sqlite under the folder it is started from (npm start runs
 * in the clone). Installed, the user's data folder, the same for `serve` and
 * `mcp` wherever they start: $XDG_DATA_HOME/taskbase/taskbase.sqlite, else
 * ~/.local/share/taskbase/taskbase.sqlite (the XDG base directory rule: an
 * empty or relative XDG_DATA_HOME is ignored).
 */
export function defaultDatabaseUrl(env: NodeJS.ProcessEnv, clone = runsFromAClone()): string {
  if (clone) return 'sqlite:data/taskbase.sqlite';
  const xdg = env.XDG_DATA_HOME?.trim();
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME?.trim() || os.homedir(), '.local', 'share');
  return `sqlite:${path.join(base, 'taskbase', 'taskbase.sqlite')}`;
}

/** What `serve` and `mcp` add on stderr when the database is the user's data folder's, so whoever reads a client's log knows why it is there. */
export function defaultDatabaseNote(env: NodeJS.ProcessEnv, clone = runsFromAClone()): string {
  return env.DATABASE_URL === undefined && !clone
    ? ' (DATABASE_URL is not set: outside a clone the database is in the user\'s data folder, shared by taskbase serve and taskbase mcp)'
    : '';
}
