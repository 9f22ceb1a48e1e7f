/**
 * Several webhooks on one domain, each receiver holding its first POST open
 * (node:http on 127.0.0.1): the dispatcher opens the next POST of every due
 * webhook with one UPDATE and one INSERT, however many webhooks are due, so
 * its share of the database does not grow with them; and the changes written
 * while a POST was held reach each webhook in its next POST, all of them in
 * one, in commit order, none twice. Real server over HTTP, SQLite or
 * PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { CREATE_NOTE } from '../fixtures/documents.js';
import { CHANGES, CREATE_WEBHOOK, WEBHOOKS, startReceiver, type LoggedChange, type Receiver } from '../fixtures/change-feed.js';

const DATABASE = process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'SQLite';
const DOMAIN = 'batched';
const HOOKS = 6;
const WRITES = 15;

let server: TestServer;
let receiver: Receiver;
/** Whether the receiver holds what it gets (until released) or answers 204. */
let holding = true;
let statements: string[] = [];
const hookIds: string[] = [];

beforeAll(async () => {
  server = await startTestServer({
    env: { TASKBASE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', TASKBASE_WEBHOOK_TIMEOUT_MS: '60000' },
    onQuery: (sql) => { statements.push(sql); },
  });
  receiver = await startReceiver(() => (holding ? 'hang' : { status: 204 }));
  for (let i = 0; i < HOOKS; i += 1) {
    hookIds.push((await server.ok(CREATE_WEBHOOK, { input: { url: `${receiver.url}/${i}`, domain: DOMAIN, secret: 'a-shared-secret-of-32-characters' } })).createWebhook.id);
  }
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

const note = async (title: string): Promise<string> => (await server.ok(CREATE_NOTE, { input: { title, body: 'b', domain: DOMAIN } })).createNote.id;

/** Each webhook's POSTs as the receiver got them, in order: the changes each carried. */
function postsByHook(): Map<string, LoggedChange[][]> {
  const posts = new Map<string, LoggedChange[][]>(hookIds.map((id) => [id, []]));
  for (const request of receiver.received) {
    const body = JSON.parse(request.body) as { webhookId: string; changes: LoggedChange[] };
    posts.get(body.webhookId)!.push(body.changes);
  }
  return posts;
}

const countOf = (pattern: RegExp) => statements.filter((sql) => pattern.test(sql)).length;

describe(`${HOOKS} webhooks of one domain on ${DATABASE}`, () => {
  it('open the next POST of every due webhook with one UPDATE and one INSERT, however many are due', async () => {
    // Nothing is owed yet: the passes the creations asked for find nothing to send.
    await new Promise((resolve) => setTimeout(resolve, 300));
    statements = [];
    const first = await note('the first, held by every receiver');
    while (receiver.held() < HOOKS) await new Promise((resolve) => setTimeout(resolve, 20));
    expect([...postsByHook().values()].map((posts) => posts.map((changes) => changes.map((change) => change.memoryId)))).toEqual(Array(HOOKS).fill([[first]]));
    const opened = countOf(/^\s*INSERT INTO "webhook_deliveries"/);
    const claimed = countOf(/^\s*UPDATE "webhooks"/);
    expect({ opened, claimed }).toEqual({ opened: 1, claimed: 1 });
    console.log(`[webhook passes, ${DATABASE}] ${HOOKS} POSTs opened in one pass with ${claimed} UPDATE of webhooks and ${opened} INSERT of deliveries`);
  }, 60_000);

  it('carry the changes written while a POST was held in the next POST, in order, none twice', async () => {
    const written: string[] = [];
    for (let i = 0; i < WRITES; i += 1) written.push(await note(`written while held ${i}`));
    // Still held: nothing after the first was sent to any webhook.
    expect(receiver.received).toHaveLength(HOOKS);
    statements = [];
    holding = false;
    receiver.release(204);
    await receiver.changesUntil(HOOKS * (1 + WRITES));
    // Whatever a pass would still send has had time to go: a change sent twice would show here.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const feed = ((await server.ok(CHANGES, { domain: DOMAIN, first: 100 })).changes.nodes as LoggedChange[]).map((change) => change.id);
    expect(feed).toHaveLength(1 + WRITES);
    for (const [id, posts] of postsByHook()) {
      // Two POSTs: the held one, then every change written meanwhile, in commit order.
      expect(posts.map((changes) => changes.length), `webhook ${id}`).toEqual([1, WRITES]);
      expect(posts[1].map((change) => change.memoryId), `webhook ${id}`).toEqual(written);
      expect(posts.flat().map((change) => change.id), `webhook ${id}`).toEqual(feed);
    }
    const hooks = (await server.ok(WEBHOOKS, { first: 50 })).webhooks as { id: string; deliveries: { changeCount: number; attempts: number; deliveredAt: string | null }[] }[];
    for (const hook of hooks) {
      expect(hook.deliveries.map((d) => [d.changeCount, d.attempts, Boolean(d.deliveredAt)])).toEqual([[WRITES, 1, true], [1, 1, true]]);
    }
    console.log(`[webhook passes, ${DATABASE}] ${WRITES} changes written while ${HOOKS} POSTs were held went in one POST to each webhook, in order; ` +
      `the answers and the next POSTs took ${countOf(/^\s*UPDATE "webhook_deliveries"/)} UPDATEs of deliveries, ${countOf(/^\s*UPDATE "webhooks"/)} of webhooks, ` +
      `${countOf(/^\s*INSERT INTO "webhook_deliveries"/)} INSERTs`);
  }, 60_000);
});
