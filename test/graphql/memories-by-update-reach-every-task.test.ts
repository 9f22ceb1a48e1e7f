/**
 * memories(order: RECENTLY_UPDATED) pages a domain most recently changed
 * first: every task once, across pages and sub-domains, with ties on the
 * same millisecond broken by id; a change moves a task to the front.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { UPDATE_ITEM } from '../fixtures/documents.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { createTask } from '../fixtures/tasks.js';

const PAGE = `query($domain: String!, $after: String) {
  memories(domain: $domain, kind: TASK, order: RECENTLY_UPDATED, first: 7, after: $after) {
    totalCount pageInfo { hasNextPage endCursor } nodes { id title updatedAt } } }`;

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

async function everyPage(domain: string): Promise<{ ids: string[]; stamps: string[]; total: number }> {
  const ids: string[] = [];
  const stamps: string[] = [];
  let after: string | null = null;
  let total = 0;
  do {
    const page: any = (await server.ok(PAGE, { domain, after })).memories;
    total = page.totalCount;
    ids.push(...page.nodes.map((node: any) => node.id));
    stamps.push(...page.nodes.map((node: any) => node.updatedAt));
    after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
  } while (after);
  return { ids, stamps, total };
}

describe('memories most recently updated first', () => {
  it('pages every task once, newest change first, and a changed task leads', async () => {
    const domain = freshDomain('byupdate');
    const made: { id: string; item: string }[] = [];
    for (let i = 0; i < 24; i += 1) {
      const { task, items } = await createTask(server, ['One step'], { domain: i % 3 === 0 ? domain : `${domain}/sub${i % 3}`, title: `Task ${i}` });
      made.push({ id: task.id, item: items[0].id });
    }
    const first = await everyPage(domain);
    expect(first.total).toBe(24);
    expect(new Set(first.ids).size).toBe(24);
    expect([...first.stamps].sort().reverse()).toEqual(first.stamps);
    await server.ok(UPDATE_ITEM, { input: { id: made[0].item, state: 'IN_PROGRESS' } });
    const after = await everyPage(domain);
    expect(after.ids[0]).toBe(made[0].id);
    expect(new Set(after.ids).size).toBe(24);
    // A cursor of the other order is refused, not misread.
    const newest = await server.ok(`query($domain: String!) { memories(domain: $domain, first: 2) { pageInfo { endCursor } } }`, { domain });
    expect((await server.refused(PAGE, { domain, after: newest.memories.pageInfo.endCursor })).code).toBe('BAD_USER_INPUT');
  });
});
