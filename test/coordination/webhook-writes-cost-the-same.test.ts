/**
 * A write costs the same whatever the number of webhooks: with 10 webhooks
 * the same updateItem writes run the same statements as with none, none of
 * them about webhooks, and the webhooks' rows do not grow with the writes
 * (each webhook has one open delivery for what it owes, not a row per change).
 * The receiver holds its requests, so every webhook owes every write made
 * meanwhile. The time per write with 0 and 10 webhooks is printed for the
 * note (not asserted). Real server over HTTP, SQLite or PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { CREATE_TASK, UPDATE_ITEM } from '../fixtures/documents.js';
import { CREATE_WEBHOOK, WEBHOOKS, startReceiver, type Receiver } from '../fixtures/change-feed.js';

const DATABASE = process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'SQLite';
const WEBHOOKS_MADE = 10;
const ITEMS = 10;

let server: TestServer;
let receiver: Receiver;
let statements: string[] = [];
let items: string[] = [];

beforeAll(async () => {
  server = await startTestServer({
    env: { TASKBASE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', TASKBASE_WEBHOOK_TIMEOUT_MS: '60000' },
    onQuery: (sql) => { statements.push(sql); },
  });
  receiver = await startReceiver(() => 'hang');
  const made = await server.ok(CREATE_TASK, { input: { title: 'Writes', goal: 'Cost the same.', domain: 'webhook-cost', items: Array.from({ length: ITEMS }, (_, i) => `Item ${i}`) } });
  items = made.createTask.items.map((item: { id: string }) => item.id);
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

/** Every item to IN_PROGRESS and back to PENDING: the same writes from the same state each time. Their statements and time per write. */
async function writes(): Promise<{ statements: string[]; msPerWrite: number }> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  statements = [];
  const started = performance.now();
  for (const state of ['IN_PROGRESS', 'PENDING']) {
    for (const id of items) await server.ok(UPDATE_ITEM, { input: { id, state } });
  }
  const msPerWrite = (performance.now() - started) / (2 * ITEMS);
  // Whatever a dispatcher would do after the writes has had time to happen.
  await new Promise((resolve) => setTimeout(resolve, 300));
  return { statements: statements.slice(), msPerWrite };
}

describe(`writes with 0 and ${WEBHOOKS_MADE} webhooks on ${DATABASE}`, () => {
  it('run the same statements, none about webhooks, and add no row per webhook per write', async () => {
    await writes();
    const without = await writes();
    for (let i = 0; i < WEBHOOKS_MADE; i += 1) {
      await server.ok(CREATE_WEBHOOK, { input: { url: `${receiver.url}/${i}`, domain: null, secret: 'a-shared-secret-of-32-characters' } });
    }
    // One write, and every webhook holds its first POST open: from here on each owes every write.
    await server.ok(UPDATE_ITEM, { input: { id: items[0], state: 'PENDING', comment: 'first owed' } });
    while (receiver.held() < WEBHOOKS_MADE) await new Promise((resolve) => setTimeout(resolve, 20));
    const withHooks = await writes();

    expect(withHooks.statements.filter((sql) => /webhook/i.test(sql))).toEqual([]);
    expect(withHooks.statements).toEqual(without.statements);
    const hooks = (await server.ok(WEBHOOKS, { first: 50 })).webhooks;
    expect(hooks).toHaveLength(WEBHOOKS_MADE);
    // One delivery each, the POST under way; the writes since are read from the change log when it is answered.
    expect(hooks.map((hook: { deliveries: unknown[] }) => hook.deliveries.length)).toEqual(Array(WEBHOOKS_MADE).fill(1));
    console.log(`[webhook write cost, ${DATABASE}] ${without.statements.length / (2 * ITEMS)} statements per write with 0 and with ${WEBHOOKS_MADE} webhooks; ` +
      `${without.msPerWrite.toFixed(1)} ms per write with 0, ${withHooks.msPerWrite.toFixed(1)} ms with ${WEBHOOKS_MADE} (sequential, over HTTP)`);
  }, 60_000);
});
