import { describe, expect, it } from 'vitest';
import { KNOWN_EXCEPTIONS, arrowsBackUp, folderCycles, importArrows } from '../../scripts/import-arrows.mjs';

// The house's layers (DESIGN.md): domain ← db ← services ← graphql | mcp ←
// the server's files, read from the import specifiers of every src/ file.
// `node scripts/import-arrows.mjs` prints the same arrows for a person.
describe('the folders of src/ import one way', () => {
  const arrows = importArrows();
  const shown = (list: readonly { from: string; to: string; files?: Set<string> }[]) =>
    list.map(({ from, to, files }) => `${from} → ${to}${files ? ` (${[...files].join(', ')})` : ''}`);

  it('has no cycle between folders (each feature of services/ is a folder of its own)', () => {
    expect(folderCycles(arrows)).toEqual([]);
  });

  it('has no arrow running back up a layer', () => {
    expect(shown(arrowsBackUp(arrows))).toEqual([]);
  });

  it('lets through only exceptions that still exist, so a fixed one is taken off the list', () => {
    const present = new Set(shown(arrows.map(({ from, to }) => ({ from, to }))));
    expect(KNOWN_EXCEPTIONS.filter((key) => !present.has(key))).toEqual([]);
  });

  it('sees the arrows it checks: the features through the task aggregate, and a cycle or an arrow back up when one is made', () => {
    expect(shown(arrows.map(({ from, to }) => ({ from, to })))).toEqual(expect.arrayContaining([
      'services/comments → services/task-aggregate', 'services/sessions → services/task-aggregate', 'services/tasks → services/task-aggregate',
      'graphql → services', 'mcp → services', 'services/task-aggregate → domain',
    ]));
    const withCycle = [...arrows, { from: 'services/task-aggregate', to: 'services/tasks', files: new Set(['made up']) }];
    expect(folderCycles(withCycle)).toEqual([expect.arrayContaining(['services/task-aggregate', 'services/tasks'])]);
    expect(shown(arrowsBackUp([{ from: 'domain', to: 'db' }, { from: 'services/kernel', to: 'services/tasks' }, { from: 'graphql', to: 'domain' }])))
      .toEqual(['domain → db', 'services/kernel → services/tasks']);
  });
});
