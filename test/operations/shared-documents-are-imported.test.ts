import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as documents from '../fixtures/documents.js';

/**
 * The documents in test/fixtures/documents.ts are the suite's one copy: a test
 * that needs a different selection gives its own document a name of its own
 * (UPDATE_ITEM_STATE, CREATE_NOTE_ID…), so a reader never meets two
 * UPDATE_ITEMs that answer different fields.
 */
const testRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sharedFile = path.join(testRoot, 'fixtures', 'documents.ts');
const shared = new Set(Object.keys(documents));

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : tsFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** `file: NAME` for every const, let or var in `source` whose name is one documents.ts exports. */
function redefinitions(file: string, source: string): string[] {
  return [...source.matchAll(/\b(?:const|let|var)\s+([A-Z][A-Z0-9_]*)\s*=/g)]
    .map((match) => match[1]!)
    .filter((name) => shared.has(name))
    .map((name) => `${path.relative(testRoot, file)}: ${name}`);
}

describe('shared GraphQL documents', () => {
  it('are imported, never defined again under the same name', () => {
    const found = tsFiles(testRoot)
      .filter((file) => file !== sharedFile)
      .flatMap((file) => redefinitions(file, fs.readFileSync(file, 'utf8')));
    expect(found).toEqual([]);
  });

  it('would be caught if a test defined one again', () => {
    expect(shared.has('UPDATE_ITEM')).toBe(true);
    // Put together at run time, so this file does not define what it looks for.
    const local = ['const', 'UPDATE_ITEM', "= 'mutation($input: UpdateItemInput!) { updateItem(input: $input) { id } }';"].join(' ');
    expect(redefinitions(path.join(testRoot, 'graphql', 'made-up.test.ts'), local)).toEqual(['graphql/made-up.test.ts: UPDATE_ITEM']);
  });
});
