/** GET / serves the built dashboard from the server itself: its page, its bundles, and the page again for any deep link. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let base: string;
beforeAll(async () => {
  server = await startTestServer({ env: { TASKBASE_TOKENS: 'writer-secret' } });
  base = server.url.replace(/\/graphql$/, '');
});
afterAll(async () => { await server?.close(); });

describe('GET /', () => {
  it('serves the page and its bundles without a token, and they load nothing from elsewhere', async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      expect(asset, 'every asset is served by this server').toMatch(/^\/assets\//);
      const response = await fetch(`${base}${asset}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(asset.endsWith('.css') ? /text\/css/ : /javascript/);
    }
  });

  it('answers a deep link with the page, and leaves /graphql and /healthz to the API', async () => {
    const deep = await fetch(`${base}/domains/acme`, { headers: { accept: 'text/html' } });
    expect(deep.status).toBe(200);
    expect(await deep.text()).toContain('<div id="app">');
    expect((await fetch(`${base}/healthz`)).headers.get('content-type')).toMatch(/json/);
    const api = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ access }"}' });
    expect(api.status).toBe(401);
  });
});

describe('Query.access', () => {
  it('says what the token allows, so the dashboard hides what it may not use', async () => {
    const result = await server.gql('{ access }', {}, { headers: { authorization: 'Bearer writer-secret' } });
    expect(result.data).toEqual({ access: 'WRITE' });
  });
});
