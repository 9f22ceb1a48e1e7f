import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { connectMcp, serverWithMcp, refusedByTool } from '../fixtures/mcp.js';

/**
 * Every refusal the knowledge-base tools can give, walked one by one: each
 * says what to send in this set's own words. It names no GraphQL operation
 * or input field, no tool of the plan sets, and no state the set does not
 * take (its states are todo, doing, done and dropped).
 */
const { server, mcp } = serverWithMcp({ tools: 'knowledge-base' });

/** The GraphQL operations (Query and Mutation fields) and input fields, as the schema file names them. */
function graphqlWords(): string[] {
  const schema = fs.readFileSync('schema.graphql', 'utf8');
  const block = (head: RegExp) => {
    const words: string[] = [];
    for (const match of schema.matchAll(new RegExp(`${head.source}[^{]*\\{([^}]*)\\}`, 'g'))) {
      for (const line of match[1]!.split('\n')) {
        const field = /^\s+(\w+)[(:]/.exec(line)?.[1];
        if (field) words.push(field);
      }
    }
    return words;
  };
  const names = [...block(/type (?:Mutation|Query) /), ...block(/input \w+ /)];
  // A GraphQL word is one the knowledge-base tools do not share (title, goal, body, domain, items, item, text, state, comment, related, query, after are theirs too).
  const shared = new Set(['title', 'goal', 'body', 'domain', 'items', 'item', 'text', 'state', 'comment', 'related', 'query', 'after', 'context', 'steps', 'pitfalls', 'status', 'type', 'delete', 'search', 'id', 'first', 'reason', 'kind', 'note', 'task', 'tasks', 'brief', 'memory', 'memories',
    // English words that are also names of the change feed, webhooks, the ready queue and the sessions list.
    'changes', 'webhooks', 'finished', 'ready', 'url', 'secret',
    // …and of a session's name (startSession's input): the verb in "name each item once".
    'name']);
  return [...new Set(names)].filter((name) => !shared.has(name));
}

const OTHER_SETS = ['todo_write', 'plan_tasks', 'update_task', 'add_task', 'validation', 'in_progress'];
const OTHER_STATES = ['PENDING', 'IN_PROGRESS', 'DONE', 'DROPPED', 'BLOCKED', 'FAILED', 'blocked', 'failed', 'completed'];

function foreignWords(text: string, graphql: readonly string[]): string[] {
  const words = new Set(text.match(/[A-Za-z_]+/g) ?? []);
  return [...graphql, ...OTHER_SETS, ...OTHER_STATES].filter((word) => words.has(word));
}

const ITEMS = 'Key charge.succeeded by event id\nCover refunds and disputes\nRemove the charge-id lookup';

describe('knowledge-base refusals', () => {
  it('name only knowledge-base tools, arguments and states, for every refusal the set can give', { timeout: 120_000 }, async () => {
    const graphql = graphqlWords();
    expect(graphql).toEqual(expect.arrayContaining(['addTaskNote', 'addItems', 'updateItem', 'createTask', 'doneWhen', 'dependsOn', 'extraInfo', 'itemsText']));
    const made = await mcp.ok('task', { title: 'Move billing webhooks', goal: 'Every webhook is deduplicated.', items: ITEMS, domain: 'acme/billing' });
    const uid = made.data.uid as string;
    const [charge, refunds, lookup] = made.data.items as [string, string, string];
    const other = await mcp.ok('task', { title: 'Another task', goal: 'g', items: 'One\nTwo', domain: 'acme/other' });
    const note = (await mcp.ok('remember', { title: 'A note', body: 'Body.', domain: 'acme/billing' })).data.uid as string;
    await mcp.ok('task_item', { uid, item: lookup, delete: true });
    // Refunds waits for the charge: the charge waiting for refunds would be a cycle.
    await mcp.ok('task_item', { uid, item: refunds, after: [charge] });
    const brief = (fields: Record<string, string>) => ({
      uid, title: 'Brief', items: refunds, goal: 'g', context: 'c', steps: 's', pitfalls: 'p', done_when: 'd', depends_on: 'none', ...fields,
    });

    const calls: [string, Record<string, unknown>][] = [
      ['task', { title: ' ', goal: 'g', items: 'a', domain: 'acme' }],
      ['task', { title: 'T'.repeat(201), goal: 'g', items: 'a', domain: 'acme' }],
      ['task', { title: 'T [[#1]]', goal: 'g', items: 'a', domain: 'acme' }],
      ['task', { title: 'T', goal: 'see i3', items: 'a', domain: 'acme' }],
      ['task', { title: 'T', goal: 'see [[#999999]]', items: 'a', domain: 'acme' }],
      ['task', { title: 'T', goal: 'g', items: 'a', domain: 'Not A Domain' }],
      ['task', { title: 'T', goal: 'g', items: 'x'.repeat(81), domain: 'acme' }],
      ['task', { title: 'T', goal: 'g', items: 'Same\nSame', domain: 'acme' }],
      ['task', { title: 'T', goal: 'g', items: 'Cite [[#1]]', domain: 'acme' }],
      ['task', { title: 'T', goal: 'g', items: Array.from({ length: 101 }, (_, i) => `Item ${i}`).join('\n'), domain: 'acme' }],
      ['task', { title: 'T\u0000', goal: 'g', items: 'a', domain: 'acme' }],
      ['task', { title: 'T\u202E', goal: 'g', items: 'a', domain: 'acme' }],
      ['task', { title: 'T', goal: 'g'.repeat(20_001), items: 'a', domain: 'acme' }],
      ['task_item', { uid: '999999', item: charge, state: 'done' }],
      ['task_item', { uid, item: other.data.items[0], state: 'done' }],
      ['task_item', { uid, item: charge, state: 'finished' }],
      ['task_item', { uid, item: charge, state: 'blocked' }],
      ['task_item', { uid, item: charge, delete: true, state: 'done' }],
      ['task_item', { uid, item: charge }],
      ['task_item', { uid, item: charge, comment: '   ' }],
      ['task_item', { uid, item: charge, state: 'done', comment: 'see i3' }],
      ['task_item', { uid, item: charge, related: '999999' }],
      ['task_item', { uid, item: charge, text: 'Cover refunds and disputes' }],
      ['task_item', { uid, item: charge, text: 'x'.repeat(81) }],
      ['task_item', { uid, item: lookup, state: 'done' }],
      ['task_item', { uid: note, item: charge, state: 'done' }],
      ['task_item', { uid, item: charge, after: [charge] }],
      ['task_item', { uid, item: charge, after: [other.data.items[0]] }],
      ['task_item', { uid, item: charge, after: [lookup] }],
      ['task_item', { uid, item: charge, after: Array.from({ length: 21 }, (_, i) => String(900_000 + i)) }],
      ['task_item', { uid, item: charge, after: [refunds] }],
      ['task_add', { uid: '999999', items: 'New' }],
      ['task_add', { uid: note, items: 'New' }],
      ['task_add', { uid, items: ' ' }],
      ['task_add', { uid, items: 'Cover refunds and disputes' }],
      ['task_add', { uid, items: 'x'.repeat(81) }],
      ['task_add', { uid, items: 'New', after: other.data.items[0] }],
      ['task_add', { uid, items: Array.from({ length: 101 }, (_, i) => `Item ${i}`).join('\n') }],
      ['task_comment', { uid: '999999', body: 'ok' }],
      ['task_comment', { uid: note, body: 'ok' }],
      ['task_comment', { uid, body: ' ' }],
      ['task_comment', { uid, body: 'see i3' }],
      ['task_comment', { uid, body: 'see [[#999999]]' }],
      ['task_comment', { uid, body: 'ok', item: other.data.items[0] }],
      ['task_note', brief({ steps: ' ', pitfalls: '' })],
      ['task_note', { uid, title: 'Brief', items: refunds, goal: 'g', context: 'c', steps: 's', pitfalls: 'p', done_when: 'd' }],
      ['task_note', brief({ depends_on: 'the first one' })],
      ['task_note', brief({ depends_on: ' ' })],
      ['task_note', brief({ depends_on: '999999' })],
      ['task_note', brief({ depends_on: `${charge}, ${charge}` })],
      ['task_note', brief({ depends_on: refunds })],
      ['task_note', brief({ depends_on: lookup })],
      ['task_note', brief({ body: 'and a body' })],
      ['task_note', { uid, title: 'Neither' }],
      ['task_note', { uid: '999999', title: 'Whole task', body: 'b' }],
      ['task_note', { uid: note, title: 'Whole task', body: 'b' }],
      ['task_note', { uid, title: ' ', body: 'b' }],
      ['task_note', brief({ items: other.data.items[0] })],
      ['task_note', brief({ goal: 'see i3' })],
      ['task_read', { uid, collection: 'history' }],
      ['task_read', { uid, collection: 'notes', item: other.data.items[0] }],
      ['task_read', { uid: note, collection: 'items' }],
      ['get_memory', { uid: '999999' }],
      ['edit_memory', { uid: '999999', title: 'x' }],
      ['edit_memory', { uid, body: 'x' }],
      ['edit_memory', { uid: note, goal: 'x' }],
      ['edit_memory', { uid }],
      ['edit_memory', { uid: note }],
      ['edit_memory', { uid, domain: 'Bad Domain' }],
      ['edit_memory', { uid, title: ' ' }],
      ['edit_memory', { uid, goal: 'see i3' }],
      ['remember', { title: ' ', body: 'b', domain: 'acme' }],
      ['remember', { title: 't', body: 'b', domain: 'Bad Domain' }],
      ['remember', { title: 't', body: 'see i3', domain: 'acme' }],
      ['list_by_domain', { domain: 'acme', type: 'plan' }],
      ['list_by_domain', { domain: 'acme', status: 'open' }],
      ['list_by_domain', { domain: 'Bad Domain' }],
      ['must_read', { domain: 'acme', type: 'note' }],
      ['must_read', { domain: 'Bad Domain' }],
      ['search', { query: ' ' }],
      ['search', { query: 'x', domain: 'Bad Domain' }],
    ];
    const leaks: string[] = [];
    for (const [name, args] of calls) {
      const text = await refusedByTool(server, mcp, name, args);
      // What the agent sent, quoted back, is its own words ("blocked" is not an item state).
      const own = Object.values(args).filter((value): value is string => typeof value === 'string').reduce((rest, value) => rest.replaceAll(`"${value}"`, '""'), text);
      const foreign = foreignWords(own, graphql);
      if (foreign.length) leaks.push(`${name} ${JSON.stringify(args).slice(0, 80)}: ${foreign.join(', ')} in ${text}`);
    }
    expect(leaks).toEqual([]);
  });

  it('tell task_add, task_comment and task_note that a uid names no task, or a note, as task_item and task_read do', async () => {
    const note = (await mcp.ok('remember', { title: 'Not a task', body: 'Body.', domain: 'acme/words' })).data.uid as string;
    const calls: [string, Record<string, unknown>][] = [
      ['task_add', { items: 'New' }],
      ['task_comment', { body: 'ok' }],
      ['task_note', { title: 'Whole task', body: 'b' }],
      ['task_item', { item: '1', state: 'done' }],
      ['task_read', { collection: 'items' }],
    ];
    for (const [name, args] of calls) {
      expect(await refusedByTool(server, mcp, name, { uid: '999999', ...args }), name).toBe('Error: no task has uid "999999". Use the uid task returned, or find it with search or must_read.');
      expect(await refusedByTool(server, mcp, name, { uid: note, ...args }), name).toBe(`Error: memory ${note} is a note, not a task: read it with get_memory, change it with edit_memory.`);
    }
  });

  it("tell task_add, task_comment and task_note that a session's plan is no task, even the caller's own, and change nothing", async () => {
    const both = await connectMcp(server, { structured: true, tools: 'whole-list,knowledge-base' });
    try {
      const written = await both.ok('todo_write', { todos: [{ content: 'Read the code', status: 'pending' }] });
      const { session } = await server.ok(`query ($id: ID!) { session(id: $id) { plan { id } } }`, { id: written.data.sessionId });
      const plan = session.plan.id as string;
      for (const [name, args] of [['task_add', { items: 'New' }], ['task_comment', { body: 'ok' }], ['task_note', { title: 'Whole task', body: 'b' }]] as const) {
        expect(await refusedByTool(server, both, name, { uid: plan, ...args }), name).toBe(`Error: no task has uid "${plan}". Use the uid task returned, or find it with search or must_read.`);
      }
    } finally {
      await both.close();
    }
  });

  it('ask in the reminder only for what task_item takes', async () => {
    const session = (await mcp.sessionId())!;
    await mcp.ok('must_read', { domain: 'acme/reminded' });
    const made = await mcp.ok('task', { title: 'Open work', goal: 'g', items: 'First\nSecond', domain: 'acme/reminded' });
    await mcp.ok('task_item', { uid: made.data.uid, item: made.data.items[0], state: 'doing' });
    const reminder = (await server.ok('mutation { endTurn { text } }', {}, { session })).endTurn;
    expect(reminder.text).toContain('mark finished items done (with what you checked), mark work decided against dropped (with the reason)');
    expect(foreignWords(reminder.text, graphqlWords())).toEqual([]);
  });
});
