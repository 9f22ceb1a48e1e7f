/**
 * The dashboard's "Agents now" page reads every working session with its
 * claims (and what each claimed item waits for), its plan's steps, and the
 * latest finished sessions' plans in one request, and that request costs a
 * fixed number of SQL statements whatever the number of sessions: counted on
 * the read connection for 3 agents and for 30.
 */
import { describe, expect, it } from 'vitest';
import { countedServer } from '../fixtures/statement-cost.js';
import { CLAIM_ITEM, FINISH_SESSION } from '../fixtures/documents.js';
import { documentOf } from '../fixtures/recorded-documents.js';
import { startSession, writeTodos } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';
import { freshDomain } from '../fixtures/knowledge.js';

// The page's own document, so the test counts the reads the page makes.
const AGENTS = documentOf('web/src/views/agents.tsx', 'AGENTS');

const counted = countedServer();
const { costOf } = counted;

/** `count` agents, each holding a claim on an item that waits for another, with a plan of a step in progress and a blocked one; and one finished. */
async function agents(tag: string, count: number): Promise<void> {
  const domain = freshDomain(tag);
  for (let i = 0; i < count; i += 1) {
    const id = await startSession(counted.server(), { name: `${tag} ${i}` });
    const { items: [first] } = await createTask(counted.server(), [`${tag} item ${i}`], { domain });
    await counted.server().ok(CLAIM_ITEM, { input: { id: first.id, ttlSeconds: 900 } }, { session: id });
    await writeTodos(counted.server(), id, [[`${tag} step ${i}a`, 'IN_PROGRESS'], [`${tag} step ${i}b`, 'BLOCKED']]);
  }
  const done = await startSession(counted.server(), { name: `${tag} finished` });
  await writeTodos(counted.server(), done, [[`${tag} finished step`, 'DONE']]);
  await counted.server().ok(FINISH_SESSION, {}, { session: done });
}

describe('Agents now', () => {
  it('costs the same statements for 30 agents as for 3', async () => {
    await agents('few', 3);
    const few = await costOf(AGENTS, { working: 200, finished: 10 });
    await agents('many', 27);
    const many = await costOf(AGENTS, { working: 200, finished: 10 });

    expect(few.data.working.nodes).toHaveLength(3);
    expect(many.data.working.nodes).toHaveLength(30);
    expect(many.data.finished.nodes).toHaveLength(2);
    const newest = many.data.working.nodes[0];
    expect(newest).toMatchObject({ name: 'many 26', preset: 'WHOLE_LIST', claims: [{ text: 'many item 26', task: { title: expect.any(String) } }] });
    expect(newest.plan.items.nodes.map((step: { text: string; state: string }) => `${step.text}:${step.state}`)).toEqual(['many step 26a:IN_PROGRESS', 'many step 26b:BLOCKED']);
    expect(Date.parse(newest.plan.items.nodes[0].updatedAt)).toBeGreaterThan(Date.parse(newest.createdAt) - 1);

    expect(many.count, `${few.shapes}\n=====\n${many.shapes}`).toBe(few.count);
    // A handful: the two lists and their counts, then one per kind of row they show (plans, steps, claims, claimed items, their tasks,
    // dependencies, and whether each agent has seen a person's steering).
    expect(many.count, many.shapes).toBeLessThanOrEqual(17);
  }, 120_000);
});
