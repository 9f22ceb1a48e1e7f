import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../seeds/demo.js';
import { startTestServer, type GraphQLResponse, type TestServer } from '../harness.js';

/**
 * The example exchange of docs/api.md, read out of the page and run against a
 * fresh database loaded with the demo seed (what `npm run seed` loads): each
 * answer must be the one the page shows, ids included. When the page or the
 * server drifts, this fails.
 */
const PAGE = fs.readFileSync(path.resolve('docs/api.md'), 'utf8');

/** The first ```<lang> block after the heading or line `after`. */
function block(after: string, lang: string): string {
  const from = PAGE.indexOf(after);
  expect(from, `docs/api.md has "${after}"`).toBeGreaterThan(-1);
  const open = PAGE.indexOf(`\`\`\`${lang}\n`, from);
  return PAGE.slice(open + lang.length + 4, PAGE.indexOf('\n```', open));
}

/** Operations, each followed by its answer on a line `# → <json>`. */
function graphqlExchange(): { query: string; answer: unknown }[] {
  const steps: { query: string; answer: unknown }[] = [];
  let query: string[] = [];
  for (const line of block("## An agent's exchange", 'graphql').split('\n')) {
    if (line.startsWith('# → ')) {
      steps.push({ query: query.join('\n').trim(), answer: JSON.parse(line.slice('# → '.length)) });
      query = [];
    } else if (!line.startsWith('#')) {
      query.push(line);
    }
  }
  return steps;
}

/** The curl commands (lines joined at `\`) and the body each answers with on the next `# ` line. */
function curlExchange(): { session: string | null; body: string; answer: string }[] {
  const lines = block("A session's plan:", 'sh').replace(/\\\n\s*/g, '').split('\n');
  const steps: { session: string | null; body: string; answer: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith('curl ')) continue;
    const body = /-d '([^']*)'/.exec(lines[i])![1];
    const session = /-H 'x-session-id: ([^']*)'/.exec(lines[i])?.[1] ?? null;
    steps.push({ session, body, answer: lines[i + 1].replace(/^# /, '') });
  }
  return steps;
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await seedDemo(server.app.services);
});
afterAll(async () => { await server?.close(); });

describe("docs/api.md's example exchange, on a seeded database", () => {
  it('answers each mutation with what the page shows, ids included', async () => {
    const steps = graphqlExchange();
    expect(steps.length).toBeGreaterThanOrEqual(3);
    for (const { query, answer } of steps) {
      const result = await server.gql(query);
      expect(result.errors, query).toBeUndefined();
      expect(result.data, query).toEqual(answer);
    }
  });

  it("answers the session's plan as the page shows, with the session id it hands out", async () => {
    const steps = curlExchange();
    expect(steps.length).toBeGreaterThanOrEqual(2);
    // The page stands for the started session's id with a placeholder; the later requests send the real one.
    const placeholder = /"id":"([^"]+)"/.exec(steps[0].answer)![1];
    let sessionId: string | null = null;
    for (const step of steps) {
      const { query } = JSON.parse(step.body) as { query: string };
      const result: GraphQLResponse = await server.gql(query, undefined, step.session ? { session: sessionId ?? step.session } : undefined);
      expect(result.errors, query).toBeUndefined();
      sessionId ??= result.data?.startSession?.id ?? null;
      const shown = JSON.stringify({ data: result.data }).replaceAll(sessionId ?? '\u0000', placeholder);
      expect(JSON.parse(shown)).toEqual(JSON.parse(step.answer));
    }
  });
});
