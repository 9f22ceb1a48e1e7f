/**
 * A webhook whose receiver was down longer than the retry budget is marked
 * inactive, and nothing is sent to it while it is; reactivateWebhook starts
 * it again from the last change it delivered, so the receiver gets every
 * change the log holds, in order, once each: those of the delivery it
 * stopped at, those written while it was inactive, and those after. Only the
 * token that created it may reactivate it, and an unknown id is NOT_FOUND.
 * Through GraphQL over HTTP to a receiver in the test, on SQLite and
 * PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { CREATE_NOTE } from '../fixtures/documents.js';
import { CREATE_WEBHOOK, REACTIVATE_WEBHOOK, WEBHOOKS, readToEnd, startReceiver, type LoggedChange, type Receiver } from '../fixtures/change-feed.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';

const MAX_ATTEMPTS = 3;
let server: TestServer;
let receiver: Receiver;
/** Whether the receiver answers 503 (down) or 200; what it answered each request, in the order received. */
let down = false;
const answered: number[] = [];

beforeAll(async () => {
  server = await startTestServer({
    env: { TASKBASE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', TASKBASE_WEBHOOK_BACKOFF_MS: '50', TASKBASE_WEBHOOK_MAX_ATTEMPTS: String(MAX_ATTEMPTS) },
  });
  receiver = await startReceiver(() => {
    const status = down ? 503 : 200;
    answered.push(status);
    return { status };
  });
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

const note = async (title: string): Promise<string> => (await server.ok(CREATE_NOTE, { input: { title, body: 'b', domain: 'resume' } })).createNote.id;

async function webhookWhen(id: string, test: (hook: any) => boolean): Promise<any> {
  for (;;) {
    const hook = (await server.ok(WEBHOOKS, { first: 50 })).webhooks.find((each: { id: string }) => each.id === id);
    if (hook && test(hook)) return hook;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The changes of the POSTs the receiver answered 2xx, in the order it got them. */
function delivered(): LoggedChange[] {
  return receiver.received.flatMap((request, i) => (answered[i] === 200 ? (JSON.parse(request.body) as { changes: LoggedChange[] }).changes : []));
}

async function deliveredUntil(n: number): Promise<LoggedChange[]> {
  const deadline = Date.now() + 20_000;
  while (delivered().length < n) {
    expect(Date.now(), `only ${delivered().length} of ${n} changes delivered`).toBeLessThan(deadline);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return delivered();
}

describe(`a webhook stopped by a receiver that was down (${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('is inactive and sent nothing while it is; reactivateWebhook resumes from its cursor: every change the log holds arrives, in order, once', async () => {
    const id = (await server.ok(CREATE_WEBHOOK, { input: { url: receiver.url, domain: 'resume', secret: 'a-shared-secret-of-32-characters' } })).createWebhook.id;
    const written: string[] = [];
    for (let i = 0; i < 3; i += 1) written.push(await note(`before the outage ${i}`));
    await deliveredUntil(3);

    // The receiver goes down past the retry budget: the webhook stops at the delivery it could not make.
    down = true;
    for (let i = 0; i < 4; i += 1) written.push(await note(`during the outage ${i}`));
    const stopped = await webhookWhen(id, (hook) => !hook.active);
    expect(stopped.stoppedBy).toMatchObject({ attempts: MAX_ATTEMPTS, lastStatus: 503 });
    down = false;
    // Written while it is inactive: nothing is sent for them until someone reactivates it.
    for (let i = 0; i < 3; i += 1) written.push(await note(`while inactive ${i}`));
    const requestsWhileInactive = receiver.received.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(requestsWhileInactive);

    expect((await server.ok(REACTIVATE_WEBHOOK, { id })).reactivateWebhook).toEqual({ id, active: true });
    for (let i = 0; i < 2; i += 1) written.push(await note(`after reactivation ${i}`));
    const changes = await deliveredUntil(written.length);
    // Every change of the domain the log holds, as `changes` lists them: in order, none lost, none twice.
    const logged = (await readToEnd((query, variables) => server.ok(query, variables), null, 'resume')).changes;
    expect(changes.map((change) => change.id)).toEqual(logged.map((change) => change.id));
    expect(changes.map((change) => change.memoryId)).toEqual(written);
    const resumed = await webhookWhen(id, (hook) => hook.active && hook.deliveries.every((d: any) => d.deliveredAt || d.nextAttemptAt === null));
    expect(resumed.stoppedBy).toBeNull();

    // Reactivating an active webhook answers it unchanged; an unknown id is NOT_FOUND, with nothing recorded.
    expect((await server.ok(REACTIVATE_WEBHOOK, { id })).reactivateWebhook).toEqual({ id, active: true });
    expect(await refusedAndNothingRecorded(server, 'NOT_FOUND', REACTIVATE_WEBHOOK, { id: '999999' })).toContain('List them with the webhooks query');

    // Stopped a second time, it names the delivery it stopped at now, not the one before.
    down = true;
    written.push(await note('second outage'));
    const again = await webhookWhen(id, (hook) => !hook.active);
    expect(again.stoppedBy.id).not.toBe(stopped.stoppedBy.id);
    expect(again.stoppedBy.id).toBe(again.deliveries[0].id);
    down = false;
    await server.ok(REACTIVATE_WEBHOOK, { id });
    expect((await deliveredUntil(written.length)).map((change) => change.memoryId)).toEqual(written);
  }, 60_000);
});
