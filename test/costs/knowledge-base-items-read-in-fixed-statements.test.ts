import { describe, expect, it } from 'vitest';
import { serverWithMcp } from '../fixtures/mcp.js';

/**
 * task_read items and get_memory show each item's linked memories and
 * counts from one batched read: the statements they cost do not grow with
 * the number of items, links, notes or comments.
 */
let statements: string[] = [];
const { mcp } = serverWithMcp({ tools: 'knowledge-base', onReadQuery: (sql) => statements.push(sql) });

/** A task of `size` items, each linked to a note, commented on and briefed. */
async function taskOf(size: number, domain: string) {
  const made = await mcp.ok('task', { title: `Task of ${size}`, goal: 'g', items: Array.from({ length: size }, (_, i) => `Item ${i + 1}`).join('\n'), domain });
  const uid = made.data.uid as string;
  const note = (await mcp.ok('remember', { title: `Note for ${size}`, body: 'b', domain })).data.uid as string;
  for (const item of made.data.items as string[]) {
    await mcp.ok('task_item', { uid, item, related: note });
    await mcp.ok('task_comment', { uid, body: 'c', item });
  }
  await mcp.ok('task_note', { uid, title: 'Brief', items: (made.data.items as string[]).join(','), goal: 'g', context: 'c', steps: 's', pitfalls: 'p', done_when: 'd', depends_on: 'none' });
  return uid;
}

async function statementsOf(name: string, args: Record<string, unknown>) {
  statements = [];
  const { data } = await mcp.ok(name, args);
  return { count: statements.length, data };
}

describe('items with their links and counts', () => {
  it('cost the same statements for 2 items as for 20', { timeout: 120_000 }, async () => {
    const small = await taskOf(2, 'acme/small');
    const large = await taskOf(20, 'acme/large');
    const readSmall = await statementsOf('task_read', { uid: small, collection: 'items' });
    const readLarge = await statementsOf('task_read', { uid: large, collection: 'items' });
    expect(readLarge.data.entries).toHaveLength(20);
    expect(readLarge.data.entries.every((entry: { links: number; comments: number; notes: number }) => entry.links === 1 && entry.comments === 1 && entry.notes === 1)).toBe(true);
    expect(readSmall.count).toBeGreaterThan(0);
    expect(readLarge.count).toBe(readSmall.count);
    const memorySmall = await statementsOf('get_memory', { uid: small });
    const memoryLarge = await statementsOf('get_memory', { uid: large });
    expect(memoryLarge.data.linked).toHaveLength(20);
    expect(memoryLarge.count).toBe(memorySmall.count);
  });
});
