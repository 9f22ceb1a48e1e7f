/** Full-text search over notes and tasks, through GraphQL over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { DELETE_ITEM, EDIT_TASK, UPDATE_ITEM, ADD_COMMENT, ADD_TASK_NOTE, CREATE_NOTE, EDIT_NOTE, SEARCH } from '../fixtures/documents.js';
import { brief, freshDomain } from '../fixtures/knowledge.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

async function note(title: string, body: string, domain = 'acme/search') {
  return (await server.ok(CREATE_NOTE, { input: { title, body, domain } })).createNote;
}

async function search(query: string, args: { domain?: string; kind?: string; first?: number; after?: string } = {}) {
  return (await server.ok(SEARCH, { query, first: 200, ...args })).search;
}

async function ids(query: string, args: { domain?: string; kind?: string } = {}): Promise<string[]> {
  return (await search(query, args)).nodes.map((m: { id: string }) => m.id);
}

const sorted = (list: string[]) => [...list].sort();

describe('what search finds', () => {
  it('finds notes by title and body, and tasks by title, goal and item labels', async () => {
    const byTitle = await note('Narwhal migration', 'Nothing else here.');
    const byBody = await note('Unrelated', 'The narwhal tusk is a tooth.');
    const taskByTitle = await createTask(server, ['Plain item'], { title: 'Walrus rollout', goal: 'Plain goal.' });
    const taskByGoal = await createTask(server, ['Plain item'], { title: 'Plain title', goal: 'Teach the walrus to dedupe.' });
    const taskByLabel = await createTask(server, ['Feed the walrus', 'Plain item'], { title: 'Plain title 2', goal: 'Plain goal.' });

    expect(sorted(await ids('narwhal'))).toEqual(sorted([byTitle.id, byBody.id]));
    expect(sorted(await ids('walrus'))).toEqual(sorted([taskByTitle.task.id, taskByGoal.task.id, taskByLabel.task.id]));
    const hit = (await search('narwhal tusk')).nodes;
    expect(hit).toEqual([expect.objectContaining({ __typename: 'Note', id: byBody.id, kind: 'NOTE', title: 'Unrelated', body: 'The narwhal tusk is a tooth.' })]);
  });

  it('matches every word, each as a prefix, ignoring case and accents', async () => {
    const both = await note('Pelican blue', 'A blue pelican.');
    await note('Pelican red', 'A red pelican.');
    const accented = await note('Überprüfung der Kasse', 'Kassenprüfung.');
    expect(await ids('pelican BLUE')).toEqual([both.id]);
    expect(await ids('peli blu')).toEqual([both.id]);
    expect(await ids('uberprufung')).toEqual([accented.id]);
    expect(await ids('ÜBERPRÜF')).toEqual([accented.id]);
    expect(await ids('pelican green')).toEqual([]);
  });

  it('ranks a title hit before a body-only hit', async () => {
    const inBody = await note('Some other topic entirely', 'We should talk about the ocelot soon.');
    const inTitle = await note('Ocelot handling', 'We should talk about the details soon.');
    expect(await ids('ocelot')).toEqual([inTitle.id, inBody.id]);
  });

  it('finds a note by its edited words, not its old ones', async () => {
    const made = await note('Gecko draft', 'Iguana notes.');
    await server.ok(EDIT_NOTE, { input: { id: made.id, title: 'Chameleon final', body: 'Axolotl notes.' } });
    expect(await ids('gecko')).toEqual([]);
    expect(await ids('iguana')).toEqual([]);
    expect(await ids('chameleon')).toEqual([made.id]);
    expect(await ids('axolotl')).toEqual([made.id]);
  });

  it('finds a task by its edited title and goal, and a renamed label by its new text only', async () => {
    const { task, items } = await createTask(server, ['Polish the marmoset', 'Other'], { title: 'Lemur', goal: 'Tapir goal.' });
    await server.ok(EDIT_TASK, { input: { id: task.id, title: 'Capybara', goal: 'Okapi goal.' } });
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, text: 'Polish the wombat' } });
    expect(await ids('lemur')).toEqual([]);
    expect(await ids('tapir')).toEqual([]);
    expect(await ids('marmoset')).toEqual([]);
    expect(await ids('capybara')).toEqual([task.id]);
    expect(await ids('okapi')).toEqual([task.id]);
    expect(await ids('wombat')).toEqual([task.id]);
  });

  it('still finds a task after changes that leave its words as they were (states, their notes and comments), and by a label renamed in the same call', async () => {
    const { task, items } = await createTask(server, ['Feed the quokka', 'Walk the pangolin']);
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE' } });
    await server.ok(UPDATE_ITEM, { input: { id: items[1].id, state: 'BLOCKED', comment: 'Waiting on the narwhal.' } });
    expect(await ids('quokka')).toEqual([task.id]);
    expect(await ids('pangolin')).toEqual([task.id]);
    await server.ok(UPDATE_ITEM, { input: { id: items[1].id, state: 'IN_PROGRESS', text: 'Walk the armadillo' } });
    expect(await ids('pangolin')).toEqual([]);
    expect(await ids('armadillo')).toEqual([task.id]);
  });

  it("does not find a deleted item's label", async () => {
    const { task, items } = await createTask(server, ['Groom the mongoose', 'Keep the dingo']);
    expect(await ids('mongoose')).toEqual([task.id]);
    await server.ok(DELETE_ITEM, { id: items[0].id });
    expect(await ids('mongoose')).toEqual([]);
    expect(await ids('dingo')).toEqual([task.id]);
  });

  it('never finds task notes or comments', async () => {
    const { task, items } = await createTask(server, ['Plain'], { title: 'Plain task', goal: 'Plain goal.' });
    await server.ok(ADD_TASK_NOTE, { input: { taskId: task.id, title: 'Quetzal brief', items: [items[0].id], brief: brief({ goal: 'Quetzal goal', steps: 'quetzal steps' }) } });
    await server.ok(ADD_TASK_NOTE, { input: { taskId: task.id, title: 'Quetzal rule', body: 'Quetzal body.' } });
    await server.ok(ADD_COMMENT, { input: { taskId: task.id, body: 'A quetzal comment.' } });
    expect((await search('quetzal')).totalCount).toBe(0);
  });
});

describe('filters and paging', () => {
  it('filters by domain (and below, not a sibling sharing the prefix) and by kind', async () => {
    const root = freshDomain('srch');
    const a = await note('Heron one', 'x', `${root}/checkout`);
    const b = await note('Heron two', 'x', `${root}/checkout/billing`);
    const c = await note('Heron three', 'x', `${root}/checkoutx`);
    const t = await createTask(server, ['Feed the heron'], { domain: `${root}/checkout` });
    expect(sorted(await ids('heron', { domain: `${root}/checkout` }))).toEqual(sorted([a.id, b.id, t.task.id]));
    expect(await ids('heron', { domain: `${root}/checkout/billing` })).toEqual([b.id]);
    expect(sorted(await ids('heron', { domain: root }))).toEqual(sorted([a.id, b.id, c.id, t.task.id]));
    expect(await ids('heron', { domain: root, kind: 'TASK' })).toEqual([t.task.id]);
    expect(sorted(await ids('heron', { domain: root, kind: 'NOTE' }))).toEqual(sorted([a.id, b.id, c.id]));
    expect(await ids('heron', { domain: `${root}/nothing` })).toEqual([]);
  });

  it('walks every hit once with first/after, in rank order, with totalCount on every page', async () => {
    const root = freshDomain('page');
    const made: string[] = [];
    // Some tie on rank (the same text), some differ.
    for (let i = 0; i < 9; i += 1) {
      const text = i % 3 === 0 ? 'Kestrel' : `Kestrel notes number ${'filler '.repeat(i)}`;
      made.push((await note(i % 2 === 0 ? `Kestrel ${i}` : `Note ${i}`, text, root)).id);
    }
    const whole = await ids('kestrel', { domain: root });
    expect(sorted(whole)).toEqual(sorted(made));
    for (const first of [1, 2, 4]) {
      const seen: string[] = [];
      let after: string | undefined;
      let pages = 0;
      for (;;) {
        const page = await search('kestrel', { domain: root, first, after });
        pages += 1;
        expect(page.totalCount).toBe(9);
        expect(page.nodes.length).toBeLessThanOrEqual(first);
        expect(page.edges.at(-1)?.cursor ?? null).toBe(page.pageInfo.endCursor);
        seen.push(...page.nodes.map((m: { id: string }) => m.id));
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
      expect(pages).toBe(Math.ceil(9 / first));
      expect(seen).toEqual(whole);
    }
  });

  it('refuses a page size over 200 and a foreign cursor', async () => {
    expect((await server.refused(SEARCH, { query: 'x', first: 201 })).code).toBe('TOO_LARGE');
    expect((await server.refused(SEARCH, { query: 'x', after: 'garbage' })).code).toBe('BAD_USER_INPUT');
  });
});

describe('any string is safe', () => {
  it('never errors on query syntax, quotes, operators, brackets or unicode', async () => {
    const tricky = await note('Tricky "quoted" (bracketed) title', 'With a-hyphen, AND OR NOT words, and a star*.');
    const inputs = [
      '"', '""', '"unbalanced', "it's", '*', 'tri*', '**', 'NEAR(', 'NEAR(a b', 'NEAR(tricky, 2)', '-', '-tricky', 'a - b', '--',
      'AND OR NOT', 'AND', 'NOT tricky', 'tricky OR', '(', ')', '((tricky', 'tricky)', '[', ']', '{', '}', '^tricky', 'title:tricky',
      'tricky:', ':', '+', '.', ',', ';', '\\', '%', '_', "' OR 1=1 --", 'NULL', '東京', '🚀', 'Überprüfung', 'é', '\u0000', 'a\u0000b', '"\u0000', '\ud800', 'tab\there',
      'a'.repeat(1000),
    ];
    for (const query of inputs) {
      const result = await server.gql(SEARCH, { query });
      expect(result.errors, `query ${JSON.stringify(query).slice(0, 40)}`).toBeUndefined();
      expect(result.data?.search.totalCount).toBeGreaterThanOrEqual(0);
    }
    // Punctuation around words is not syntax: the words still match.
    for (const query of ['"tricky"', 'tricky*', '(tricky)', '-tricky', 'tricky AND', 'quoted" bracketed', 'tri\u0000']) {
      expect(await ids(query), query).toContain(tricky.id);
    }
  });

  it('refuses an empty or blank query with EMPTY_TEXT', async () => {
    for (const query of ['', '   ', '\n\t']) {
      expect((await server.refused(SEARCH, { query })).code).toBe('EMPTY_TEXT');
    }
  });

  it('refuses a query over 1,000 characters or 32 words with TOO_LARGE, saying the limit', async () => {
    const long = await server.refused(SEARCH, { query: 'a'.repeat(1001) });
    expect(long.code).toBe('TOO_LARGE');
    expect(long.message).toContain('1000');
    const many = await server.refused(SEARCH, { query: Array.from({ length: 33 }, (_, i) => `word${i}`).join(' ') });
    expect(many.code).toBe('TOO_LARGE');
  });
});

describe('paging while others write', () => {
  it('walks every hit once even when unrelated memories are written between pages', async () => {
    const made: string[] = [];
    for (let i = 0; i < 7; i += 1) made.push((await note(i % 2 ? `Zebra crossing ${i}` : `Crossing ${i}`, `zebra stripes, page ${i}`)).id);
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page += 1) {
      const data: { search: { nodes: { id: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string } } } =
        await server.ok(`query($after: String) { search(query: "zebra", first: 2, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }`, { after });
      seen.push(...data.search.nodes.map((n) => n.id));
      // Unrelated writes between pages change collection-wide statistics; the order must not move.
      await note(`Horse ${page}`, 'donkey mule stable');
      if (!data.search.pageInfo.hasNextPage) break;
      after = data.search.pageInfo.endCursor;
    }
    expect([...seen].sort()).toEqual([...made].sort());
    expect(new Set(seen).size).toBe(seen.length);
  });
});

describe('words and ranking alike on every database', () => {
  it('finds the words inside addresses, hosts, versions and other scripts', async () => {
    const found = await note('Contacts', 'Write to jane.doe@example.com or see https://example.org/docs/setup for version 1.2.3 of foo-bar. हिन्दी भाषा');
    for (const query of ['jane.doe@example.com', 'example.org', 'docs', 'setup', '1.2.3', 'foo', 'हिन्दी']) {
      expect(await ids(query), query).toContain(found.id);
    }
  });

  it('ranks every word in the title first, then some word in the title, then the rest, newest first within each', async () => {
    const domain = 'acme/tiers';
    const bothInTitle = await note('Alpha beta', 'nothing else', domain);
    const alphaInTitle = await note('Alpha', 'beta below', domain);
    const onlyBody = await note('Other', 'alpha beta alpha beta alpha beta', domain);
    const betaInTitle = await note('Beta gamma', 'alpha below', domain);
    expect(await ids('alpha beta', { domain })).toEqual([bothInTitle.id, betaInTitle.id, alphaInTitle.id, onlyBody.id]);
  });
});
