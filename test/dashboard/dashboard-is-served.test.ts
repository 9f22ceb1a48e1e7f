/** GET / serves the built dashboard from the server itself: its page, its bundles (compressed) and their headers; a path-style deep link goes to its hash route, and any other path is 404 JSON. */
import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';

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

  it('sends a path-style deep link to its hash route, and leaves /graphql and /healthz to the API', async () => {
    const deep = await fetch(`${base}/domains/acme?archived=1`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(deep.status).toBe(302);
    expect(deep.headers.get('location')).toBe('/#/domains/acme?archived=1');
    const followed = await fetch(`${base}/task/12`, { headers: { accept: 'text/html' } });
    expect(followed.status).toBe(200);
    expect(await followed.text()).toContain('<div id="app">');
    expect((await fetch(`${base}/healthz`)).headers.get('content-type')).toMatch(/json/);
    const api = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ access }"}' });
    expect(api.status).toBe(401);
  });

  it('answers a path that is not a dashboard view with 404 JSON, never the page', async () => {
    const response = await fetch(`${base}/wp-admin/setup.php`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('serves the page and its bundles under a strict CSP that forbids framing, sniffing and referrers', async () => {
    const page = await fetch(`${base}/`);
    const html = await page.text();
    // Vite's build puts every script in a file: nothing inline for the CSP to allow.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1];
    for (const response of [page, await fetch(`${base}${asset}`)]) {
      const csp = response.headers.get('content-security-policy') ?? '';
      const directives = Object.fromEntries(csp.split(';').map((part) => part.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
      expect(directives['default-src']).toEqual(["'self'"]);
      expect(directives['script-src']).toEqual(["'self'"]);
      expect(directives['frame-ancestors']).toEqual(["'none'"]);
      expect(directives['base-uri']).toEqual(["'none'"]);
      expect(directives['object-src']).toEqual(["'none'"]);
      const host = new URL(base).host;
      expect(directives['connect-src']).toEqual(["'self'", `ws://${host}`, `wss://${host}`]);
      expect(csp).not.toContain('unsafe');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    }
    const json = await fetch(`${base}/healthz`);
    expect(json.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

/** One GET with exactly these headers (fetch would add and undo its own Accept-Encoding). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

describe('the bundles', () => {
  it('are sent compressed when the browser accepts it, with a year-long cache since their names carry their hash', async () => {
    const html = await (await fetch(`${base}/`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]);
    expect(assets.length).toBeGreaterThan(1);
    for (const asset of assets) {
      const plain = await rawGet(`${base}${asset}`, {});
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      const gzip = await rawGet(`${base}${asset}`, { 'accept-encoding': 'gzip' });
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(zlib.gunzipSync(gzip.body).equals(plain.body)).toBe(true);
      const brotli = await rawGet(`${base}${asset}`, { 'accept-encoding': 'gzip, br' });
      expect(brotli.headers['content-encoding']).toBe('br');
      expect(zlib.brotliDecompressSync(brotli.body).equals(plain.body)).toBe(true);
      expect(brotli.body.length, `${asset}: ${plain.body.length} bytes, ${gzip.body.length} gzipped, ${brotli.body.length} brotli`).toBeLessThan(plain.body.length / 2.5);
      console.log(`[assets] ${asset}: ${plain.body.length} B, gzip ${gzip.body.length} B, brotli ${brotli.body.length} B`);
    }
    const page = await rawGet(`${base}/`, { 'accept-encoding': 'gzip' });
    expect(page.headers['cache-control']).toBe('no-cache');
    expect((await rawGet(`${base}/assets/index-gone.js`, { accept: 'text/html' })).status, "an old build's bundle is a 404, not the page").toBe(404);
  });
});

describe('Query.access', () => {
  it('says what the token allows, so the dashboard hides what it may not use', async () => {
    const result = await server.gql('{ access }', {}, { headers: { authorization: 'Bearer writer-secret' } });
    expect(result.data).toEqual({ access: 'WRITE' });
  });
});
