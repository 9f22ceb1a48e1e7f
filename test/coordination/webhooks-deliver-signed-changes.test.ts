/**
 * Webhooks against a receiver in the test (node:http on 127.0.0.1, allowed
 * by TASKBASE_WEBHOOK_ALLOWED_HOSTS, with short retries): deliveries are
 * signed as docs/webhooks.md says (the delivery id included) and carry the
 * changes in order, once each (on PostgreSQL with a second server process
 * dispatching from the same database); a 500 is
 * retried with the same delivery id, then delivered once; a receiver that
 * holds its request does not hold up a write; a dead receiver makes the
 * webhook inactive after the last attempt, leaving one delivery behind
 * however many changes came meanwhile; a redirect is not followed; an
 * internal or reserved target (IPv6 forms included) is refused unless
 * allowed, without saying where it resolves; bad input and read-only tokens
 * are refused with nothing recorded. A transcript is printed for the note.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { startBuiltServer, type BuiltServer } from '../built-server.js';
import { CREATE_NOTE } from '../fixtures/documents.js';
import { CHANGES, CREATE_WEBHOOK, DELETE_WEBHOOK, WEBHOOKS, startReceiver, type Answer, type Receiver, type Received } from '../fixtures/change-feed.js';

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
const DATABASE = onPostgres ? 'PostgreSQL' : 'SQLite';
const SECRET = 'a-shared-secret-of-32-characters';
const MAX_ATTEMPTS = 3;
const WEBHOOK_ENV = {
  TASKBASE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  TASKBASE_WEBHOOK_BACKOFF_MS: '50',
  TASKBASE_WEBHOOK_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
  // Long enough that a held request is still held while the test writes; the receivers end held ones when they close.
  TASKBASE_WEBHOOK_TIMEOUT_MS: '60000',
};

let server: TestServer;
let other: BuiltServer | null = null;
let workDir: string;
const receivers: Receiver[] = [];

beforeAll(async () => {
  server = await startTestServer({ env: WEBHOOK_ENV });
  if (onPostgres) {
    // A second server process delivers from the same outbox: each delivery must still be sent by one at a time.
    Object.assign(process.env, WEBHOOK_ENV);
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-webhooks-'));
    other = await startBuiltServer(server.databaseUrl, workDir, 90_000);
  }
}, 120_000);
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  if (other) {
    other.process.kill('SIGTERM');
    await other.exited();
  }
  await server?.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

async function receiver(answer: (received: Received[]) => Answer): Promise<Receiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

const note = async (domain: string, title: string): Promise<string> => (await server.ok(CREATE_NOTE, { input: { title, body: 'b', domain } })).createNote.id;

async function webhook(url: string, domain: string | null): Promise<string> {
  return (await server.ok(CREATE_WEBHOOK, { input: { url, domain, secret: SECRET } })).createWebhook.id;
}

/** The webhook as `webhooks` lists it, once `test` holds (polled: deliveries happen after the write is answered). */
async function webhookWhen(id: string, test: (hook: any) => boolean): Promise<any> {
  for (;;) {
    const hook = (await server.ok(WEBHOOKS, { first: 50 })).webhooks.find((each: { id: string }) => each.id === id);
    if (hook && test(hook)) return hook;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const signatureOf = (received: Received) => {
  const timestamp = String(received.headers['x-taskbase-timestamp']);
  const delivery = String(received.headers['x-taskbase-delivery']);
  return `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.${delivery}.${received.body}`).digest('hex')}`;
};

/** docs/webhooks.md's "verify a delivery" snippet, as a function (its import made an argument). */
function documentedVerifier(): (secret: string, headers: Received['headers'], body: string) => boolean {
  const page = fs.readFileSync(path.resolve('docs/webhooks.md'), 'utf8');
  const from = page.indexOf('## Verifying a delivery');
  const open = page.indexOf('```js\n', from);
  const code = page.slice(open + 6, page.indexOf('\n```', open)).replace(/^import .*$/m, '');
  return new Function('createHmac', 'timingSafeEqual', `${code}\nreturn verified;`)(createHmac, timingSafeEqual);
}

describe(`webhooks on ${DATABASE}${onPostgres ? ', two server processes dispatching' : ''}`, () => {
  it('POSTs each change under the domain, signed over the delivery id too, in order, once each', async () => {
    const endpoint = await receiver(() => ({ status: 204 }));
    const id = await webhook(endpoint.url, 'signed');
    await note('elsewhere', 'not delivered');
    const written: string[] = [];
    for (let i = 0; i < 12; i += 1) written.push(await note(i % 2 ? 'signed/below' : 'signed', `signed ${i}`));
    const changes = await endpoint.changesUntil(written.length);
    const received = endpoint.received.slice();
    const hook = await webhookWhen(id, (h) => h.deliveries.reduce((n: number, d: any) => n + (d.deliveredAt ? d.changeCount : 0), 0) === written.length);
    expect(changes.map((change) => change.memoryId)).toEqual(written);
    for (const r of received) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-taskbase-timestamp']).toMatch(/^\d{10}$/);
      expect(r.headers['x-taskbase-signature']).toBe(signatureOf(r));
    }
    // The body carries the changes as the feed answers them, and the delivery id is the one `webhooks` lists.
    const [first] = received;
    const body = JSON.parse(first.body);
    expect(body).toMatchObject({ webhookId: id, changes: [{ action: 'NOTE_CREATED', domain: 'signed', memoryId: written[0] }] });
    const feed = (await server.ok(CHANGES, { domain: 'signed', first: 200 })).changes.nodes;
    expect(feed.find((change: { id: string }) => change.id === body.changes[0].id)).toMatchObject(body.changes[0]);
    expect(hook.deliveries.map((d: any) => d.id).reverse()).toEqual(received.map((r) => r.headers['x-taskbase-delivery']));
    expect(hook.deliveries.map((d: any) => d.changeCount).reverse()).toEqual(received.map((r) => JSON.parse(r.body).changes.length));
    expect(hook.deliveries.every((d: any) => d.attempts === 1 && d.lastStatus === 204)).toBe(true);
    // Verified by the docs' own snippet, which a wrong secret, another body, or the same request under another delivery id fails.
    const verified = documentedVerifier();
    expect(received.every((r) => verified(SECRET, r.headers, r.body))).toBe(true);
    expect(verified('another-secret-of-16+', first.headers, first.body)).toBe(false);
    expect(verified(SECRET, first.headers, '{"webhookId":"1","changes":[]}')).toBe(false);
    expect(verified(SECRET, { ...first.headers, 'x-taskbase-delivery': '999999' }, first.body)).toBe(false);
    // A captured request re-sent after the replay window fails too.
    const stale = String(Number(first.headers['x-taskbase-timestamp']) - 301);
    const replayed = { ...first.headers, 'x-taskbase-timestamp': stale };
    expect(verified(SECRET, { ...replayed, 'x-taskbase-signature': signatureOf({ headers: replayed, body: first.body }) }, first.body)).toBe(false);
    console.log(`[webhook transcript, ${DATABASE}] POST ${new URL(endpoint.url).pathname}\n` +
      `  X-Taskbase-Delivery: ${first.headers['x-taskbase-delivery']}\n  X-Taskbase-Timestamp: ${first.headers['x-taskbase-timestamp']}\n` +
      `  X-Taskbase-Signature: ${first.headers['x-taskbase-signature']} (verified with the secret)\n  ${first.body}\n` +
      `  -> 204; ${changes.length} changes delivered in write order, each once, in ${received.length} POSTs${onPostgres ? ' by two dispatching servers' : ''}`);
  }, 60_000);

  it('retries a 500 with the same delivery id and body, then delivers it once', async () => {
    const endpoint = await receiver((received) => (received.length <= 2 ? { status: 500 } : { status: 200 }));
    const id = await webhook(endpoint.url, 'retried');
    const written = await note('retried', 'retried once more');
    const attempts = await endpoint.until(3);
    expect(new Set(attempts.map((r) => r.headers['x-taskbase-delivery'])).size).toBe(1);
    expect(new Set(attempts.map((r) => r.body)).size).toBe(1);
    for (const r of attempts) expect(r.headers['x-taskbase-signature']).toBe(signatureOf(r));
    const hook = await webhookWhen(id, (h) => h.deliveries[0]?.deliveredAt);
    expect(hook.deliveries).toHaveLength(1);
    expect(hook.deliveries[0]).toMatchObject({ attempts: 3, lastStatus: 200, lastError: null, nextAttemptAt: null, changeCount: 1, change: { memoryId: written } });
    expect(hook.active).toBe(true);
    expect(hook.stoppedBy).toBeNull();
    // Delivered once: the next change is the next request, with no repeat of the first before it.
    const sentinel = await note('retried', 'sentinel');
    const all = await endpoint.until(4);
    expect(all).toHaveLength(4);
    expect(JSON.parse(all[3].body).changes.map((change: { memoryId: string }) => change.memoryId)).toEqual([sentinel]);
    console.log(`[webhook retry, ${DATABASE}] delivery ${attempts[0].headers['x-taskbase-delivery']}: 500, 500, then 200 ` +
      `(attempts ${hook.deliveries[0].attempts}, lastStatus ${hook.deliveries[0].lastStatus}); the next request was the next change`);
  }, 60_000);

  it('acknowledges writes while a receiver holds its request open', async () => {
    const endpoint = await receiver(() => 'hang');
    await webhook(endpoint.url, 'held');
    await note('held', 'the first, held by the receiver');
    await endpoint.until(1);
    expect(endpoint.held()).toBe(1);
    // Writes in the webhook's domain and elsewhere are answered while the request is still held.
    const answered = await Promise.all([note('held', 'second'), note('held/below', 'third'), note('free', 'fourth')]);
    expect(answered.every(Boolean)).toBe(true);
    expect(endpoint.held()).toBe(1);
    // And in order: nothing after the held one is sent before it is answered.
    expect(endpoint.received).toHaveLength(1);
  }, 60_000);

  it('marks a webhook inactive once a dead receiver failed every attempt, leaving one delivery however many changes came meanwhile', async () => {
    const dead = await startReceiver(() => ({ status: 200 }));
    await dead.close();
    const id = await webhook(dead.url, 'dead');
    // Written while its first delivery is still being tried: none of them is copied for it.
    await Promise.all(Array.from({ length: 10 }, (_, i) => note('dead', `never delivered ${i}`)));
    const hook = await webhookWhen(id, (h) => !h.active);
    expect(hook.deliveries).toHaveLength(1);
    expect(hook.deliveries[0]).toMatchObject({ attempts: MAX_ATTEMPTS, lastStatus: null, deliveredAt: null, nextAttemptAt: null });
    // Why it stopped, as the dashboard shows it: that delivery, and the error its last attempt got (never a receiver's body).
    expect(hook.deliveries[0].lastError).toBe('could not deliver (ECONNREFUSED)');
    expect(hook.stoppedBy).toEqual({ id: hook.deliveries[0].id, attempts: MAX_ATTEMPTS, lastStatus: null, lastError: 'could not deliver (ECONNREFUSED)' });
    // Inactive: nothing more is queued for it.
    await note('dead', 'after it gave up');
    const alive = await receiver(() => ({ status: 200 }));
    await webhook(alive.url, 'dead');
    await note('dead', 'heard by the live one');
    await alive.until(1);
    expect((await webhookWhen(id, () => true)).deliveries).toHaveLength(1);
  }, 60_000);

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    const target = await receiver(() => ({ status: 200 }));
    const redirecting = await receiver(() => ({ status: 302, headers: { location: target.url } }));
    const id = await webhook(redirecting.url, 'redirected');
    await note('redirected', 'not followed');
    const hook = await webhookWhen(id, (h) => !h.active);
    expect(hook.deliveries[0]).toMatchObject({ attempts: MAX_ATTEMPTS, lastStatus: 302, deliveredAt: null });
    expect(hook.stoppedBy).toEqual({ id: hook.deliveries[0].id, attempts: MAX_ATTEMPTS, lastStatus: 302, lastError: null });
    expect(redirecting.received).toHaveLength(MAX_ATTEMPTS);
    expect(target.received).toHaveLength(0);
  }, 60_000);

  it('refuses a non-http URL and a short secret, records nothing, and deletes', async () => {
    const before = (await server.ok(WEBHOOKS)).webhooks.length;
    const ftp = await server.refused(CREATE_WEBHOOK, { input: { url: 'ftp://127.0.0.1/hook', secret: SECRET } });
    expect(ftp.code).toBe('BAD_USER_INPUT');
    expect(ftp.message).toMatch(/http:\/\/ or https:\/\//);
    const short = await server.refused(CREATE_WEBHOOK, { input: { url: 'http://127.0.0.1/hook', secret: 'fifteen-chars!!' } });
    expect(short.code).toBe('BAD_USER_INPUT');
    expect(short.message).toMatch(/16 to 200 characters \(got 15\)/);
    expect((await server.refused(CREATE_WEBHOOK, { input: { url: 'http://127.0.0.1/hook', secret: SECRET, domain: 'Bad Domain' } })).code).toBe('INVALID_DOMAIN');
    expect((await server.ok(WEBHOOKS)).webhooks).toHaveLength(before);
    expect((await server.refused(WEBHOOKS, { first: 51 })).code).toBe('TOO_LARGE');
    const id = await webhook('http://127.0.0.1:9/gone', null);
    expect((await server.ok(DELETE_WEBHOOK, { id })).deleteWebhook).toBe(true);
    expect((await server.refused(DELETE_WEBHOOK, { id })).code).toBe('NOT_FOUND');
    expect((await server.ok(WEBHOOKS)).webhooks).toHaveLength(before);
  });
});

describe(`webhook targets without the allow-list, on ${DATABASE}`, () => {
  let strict: TestServer;
  beforeAll(async () => {
    strict = await startTestServer({ env: { TASKBASE_TOKENS: 'writer-token,reader-token:read' } });
  });
  afterAll(async () => strict?.close());
  const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

  it('refuses loopback, private, link-local and reserved targets, by address (IPv6 forms included) and by name, without saying where a name resolves', async () => {
    for (const url of [
      'http://127.0.0.1:8080/hook', 'http://localhost/hook', 'http://10.1.2.3/hook', 'http://192.168.0.10/hook', 'http://169.254.169.254/latest', 'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook', 'http://[::7f00:1]/hook', 'http://[2002:7f00:1::]/hook', 'http://[2001::1]/hook', 'http://[64:ff9b::a9fe:a9fe]/hook',
      'http://[64:ff9b:1::a00:1]/hook', 'http://[100::1]/hook', 'http://192.0.2.1/hook', 'http://198.51.100.7/hook', 'http://[2001:db8::1]/hook', 'http://0x7f.1/hook',
    ]) {
      const result = await strict.gql(CREATE_WEBHOOK, { input: { url, secret: SECRET } }, as('writer-token'));
      expect(result.errors?.[0].extensions?.code, url).toBe('BAD_USER_INPUT');
      expect(result.errors?.[0].message, url).toMatch(/is not allowed: webhooks may reach public addresses only.*TASKBASE_WEBHOOK_ALLOWED_HOSTS/);
    }
    const byName = await strict.gql(CREATE_WEBHOOK, { input: { url: 'http://localhost/hook', secret: SECRET } }, as('writer-token'));
    expect(byName.errors?.[0].message).not.toMatch(/127\.0\.0\.1|::1|resolves to/);
    expect((await strict.gql(WEBHOOKS, {}, as('reader-token'))).data?.webhooks).toEqual([]);
  });

  it('lets a read-only token read the feed and the webhooks, not create one', async () => {
    const refused = await strict.gql(CREATE_WEBHOOK, { input: { url: 'https://hooks.example.com/x', secret: SECRET } }, as('reader-token'));
    expect(refused.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const feed = await strict.gql(CHANGES, {}, as('reader-token'));
    expect(feed.errors).toBeUndefined();
    expect(feed.data?.changes.pageInfo.hasNextPage).toBe(false);
  });
});
