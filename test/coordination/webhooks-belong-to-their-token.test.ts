/**
 * A webhook belongs to the bearer token that created it: only that token
 * sees its whole URL (a credential in its path or query stays with it) and
 * may delete it; every other token, read-only ones included, sees its scheme
 * and host; the cap of 50 webhooks is per token, so one token filling its
 * own leaves every other token its 50. Over HTTP with three tokens, on a
 * real database (SQLite, or PostgreSQL with TEST_POSTGRES_URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOKS_MAX } from '../../src/services/webhooks/webhook.service.js';
import { startTestServer, type TestServer } from '../harness.js';
import { CREATE_WEBHOOK, DELETE_WEBHOOK, REACTIVATE_WEBHOOK, WEBHOOKS } from '../fixtures/change-feed.js';

const SECRET = 'a-shared-secret-of-32-characters';
/** Nothing listens on port 9: deliveries would fail, and none is needed here. */
const SECRET_URL = 'http://127.0.0.1:9/services/xoxb-1234-secret-path?token=query-credential';
const SHOWN = 'http://127.0.0.1:9';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { TASKBASE_TOKENS: 'owner-token,other-token,reader-token:read', TASKBASE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
});
afterAll(async () => server?.close());

const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const create = (token: string, url = SECRET_URL) => server.gql(CREATE_WEBHOOK.replace('createdAt', 'createdAt owned'), { input: { url, secret: SECRET } }, as(token));
const list = async (token: string) => (await server.gql(WEBHOOKS, {}, as(token))).data!.webhooks as { id: string; url: string; owned: boolean }[];

describe('a webhook and the token that created it', () => {
  let id: string;

  it('shows its whole URL to the creating token only; another write token and a read-only token see scheme and host', async () => {
    const made = await create('owner-token');
    expect(made.errors).toBeUndefined();
    expect(made.data!.createWebhook).toMatchObject({ url: SECRET_URL, owned: true });
    id = made.data!.createWebhook.id;
    expect((await list('owner-token')).find((hook) => hook.id === id)).toMatchObject({ url: SECRET_URL, owned: true });
    for (const token of ['other-token', 'reader-token']) {
      const seen = (await list(token)).find((hook) => hook.id === id)!;
      expect(seen, token).toMatchObject({ url: SHOWN, owned: false });
      expect(JSON.stringify(await list(token)), token).not.toMatch(/xoxb|query-credential|services/);
    }
  });

  it('is deleted (and reactivated) only by the creating token: another write token is refused and the webhook stays', async () => {
    const reactivated = await server.gql(REACTIVATE_WEBHOOK, { id }, as('other-token'));
    expect(reactivated.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect(reactivated.errors?.[0].message).toMatch(/reactivated only with the token that created it/);
    expect((await server.gql(REACTIVATE_WEBHOOK, { id }, as('owner-token'))).data?.reactivateWebhook).toEqual({ id, active: true });
    const other = await server.gql(DELETE_WEBHOOK, { id }, as('other-token'));
    expect(other.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect(other.errors?.[0].message).toMatch(/created with another bearer token.*createWebhook/);
    expect((await server.gql(DELETE_WEBHOOK, { id }, as('reader-token'))).errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect((await list('owner-token')).map((hook) => hook.id)).toContain(id);
    expect((await server.gql(DELETE_WEBHOOK, { id }, as('owner-token'))).data?.deleteWebhook).toBe(true);
    expect((await list('owner-token')).map((hook) => hook.id)).not.toContain(id);
  });

  it(`caps webhooks at ${WEBHOOKS_MAX} per token: one token at its cap leaves the others theirs`, async () => {
    for (let i = 0; i < WEBHOOKS_MAX; i += 1) {
      const made = await create('other-token', `http://127.0.0.1:9/other/${i}`);
      expect(made.errors, `webhook ${i}`).toBeUndefined();
    }
    const refused = await create('other-token', 'http://127.0.0.1:9/other/one-more');
    expect(refused.errors?.[0].extensions?.code).toBe('TOO_LARGE');
    expect(refused.errors?.[0].message).toMatch(new RegExp(`This token has already ${WEBHOOKS_MAX} webhooks.*deleteWebhook`));
    // The owner's next webhook is not refused by another token's.
    const mine = await create('owner-token');
    expect(mine.errors).toBeUndefined();
    expect((await list('owner-token')).filter((hook) => hook.owned).map((hook) => hook.id)).toEqual([mine.data!.createWebhook.id]);
    expect((await list('other-token')).filter((hook) => hook.owned)).toHaveLength(WEBHOOKS_MAX);
  }, 60_000);
});
