/** A browser opening /graphql gets a short page served by taskbase itself, loading nothing from anywhere else. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer({ env: { TASKBASE_TOKENS: 'writer' } }); });
afterAll(async () => { await server?.close(); });

const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('GET /graphql from a browser', () => {
  it('is a local page saying what the endpoint is, how to query it, with a link to /', async () => {
    const response = await fetch(server.url, { headers: { accept: browserAccept } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('GraphQL');
    expect(html).toContain(`curl -s ${server.url}`);
    expect(html).toContain('<a href="/">');
    // The browser is told to load nothing from anywhere, not even from this server.
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('references no http(s) URL outside the server, and loads no script, stylesheet, image or frame', async () => {
    const html = await (await fetch(server.url, { headers: { accept: browserAccept } })).text();
    const origin = new URL(server.url).origin;
    const urls = html.match(/https?:\/\/[^\s"'<>)]+/gi) ?? [];
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(new URL(url).origin, url).toBe(origin);
    expect(html).not.toMatch(/<(script|link|img|iframe|object|embed)\b/i);
    expect(html).not.toMatch(/(?:src|href)\s*=\s*["']?\s*\/\//i);
    expect(html).not.toMatch(/@import|url\(/i);
  });

  it('escapes a Host header instead of echoing markup', async () => {
    const { request } = await import('node:http');
    const { port } = new URL(server.url);
    const html = await new Promise<string>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/graphql', headers: { accept: 'text/html', host: 'x"><script>alert(1)</script>' } }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk) => { body += chunk; }).on('end', () => resolve(body));
      });
      req.on('error', reject).end();
    });
    expect(html).not.toContain('<script>');
  });

  it('leaves API clients to GraphQL: a JSON GET still needs the token', async () => {
    const response = await fetch(`${server.url}?query=${encodeURIComponent('{ reminderSettings { enabled } }')}`, { headers: { accept: 'application/json' } });
    expect(response.status).toBe(401);
    const authorized = await fetch(`${server.url}?query=${encodeURIComponent('{ reminderSettings { enabled } }')}`, {
      headers: { accept: 'application/json', authorization: 'Bearer writer', 'apollo-require-preflight': 'true' },
    });
    expect(await authorized.json()).toEqual({ data: { reminderSettings: { enabled: true } } });
  });
});
