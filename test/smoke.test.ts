import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATE_TASK, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

describe('smoke', () => {
  it('creates a task and reads it back', async () => {
    const data = await server.ok(CREATE_TASK, {
      input: { title: 'Move billing webhooks', goal: 'Every webhook is deduplicated.', itemsText: 'Key charge.succeeded by event id\nCover refunds and disputes', domain: 'acme/checkout/billing' },
    });
    expect(data.createTask.items.map((i: any) => i.number)).toEqual([1, 2]);
    expect(data.createTask.task.state).toBe('OPEN');
    expect(data.createTask.task.version).toBe(1);
  });
});
