/**
 * "This domain and below" is an index range on both databases: the SQL that
 * mustRead, memories (by kind and status), domains(under:) and search(domain:)
 * send is explained on the same database, and each reads memories (and the
 * kept domain counts, which domains() and the memories pages' totals read)
 * through an index, never by scanning the table (a memories page read in id
 * order walks the primary key back from a bound, a range too). On PostgreSQL sequential scans are
 * switched off for the check, so "an index can answer this" is what is
 * asserted (a table this small would otherwise be read whole by choice).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { CREATE_NOTE } from '../fixtures/documents.js';
import { createTask } from '../fixtures/tasks.js';
import { openTasksIn } from '../../src/services/memories/memory-reader.js';
import { readyItems } from '../../src/services/claims/claim-store.js';
import { planOf as planOn } from '../fixtures/query-plans.js';

let captured: { sql: string; parameters: readonly unknown[] }[] = [];
let capturing = false;
let server: TestServer;
const postgres = Boolean(process.env.TEST_POSTGRES_URL);

beforeAll(async () => {
  server = await startTestServer({ onReadQuery: (sql, parameters) => { if (capturing) captured.push({ sql, parameters: parameters ?? [] }); } });
  for (const domain of ['acme/checkout', 'acme/checkout/billing', 'acme/checkout-v2', 'acme/checkoutx', 'other/team']) {
    await createTask(server, ['One', 'Two'], { domain });
    await server.ok(CREATE_NOTE, { input: { title: `Note in ${domain}`, body: 'Refunds.', domain } });
  }
});
afterAll(async () => { await server?.close(); });

/** The statements a query sends that read a domain scope. */
async function scopeStatements(query: string, variables: Record<string, unknown>) {
  captured = [];
  capturing = true;
  const data = await server.ok(query, variables);
  capturing = false;
  // A scope's range, one domain of it (a memories page reads each domain's newest ids on its own), or its domains as a list
  // (a memories page read in id order).
  const scoped = captured.filter((statement) => /"domain" >=|"domain" = |"domain" IN \(|"domain" = ANY\(/.test(statement.sql));
  expect(scoped.length, `no statement of ${query} read a domain range`).toBeGreaterThan(0);
  return { data, scoped };
}

const planOf = (sql: string, parameters: readonly unknown[]) => planOn(server, sql, parameters);

/** memories and domain_counts are read through one of their indexes, and never scanned whole. */
function expectIndexedRead(plan: string[]): void {
  const text = plan.join('\n');
  if (postgres) {
    expect(text, text).not.toMatch(/Seq Scan on (memories|domain_counts)/);
    expect(text, text).toMatch(/Index (Only )?Scan (Backward )?using (idx_memories_\w+ on memories|memories_pkey on memories|domain_counts_pkey on domain_counts)|Bitmap Index Scan on idx_memories_/);
  } else {
    expect(text, text).not.toMatch(/^SCAN (m|d|domain_counts)\b/m);
    expect(text, text).toMatch(
      /SEARCH (m|d) USING (COVERING )?INDEX idx_memories_\w+ \([^)]*domain[<>=]|SEARCH m USING INTEGER PRIMARY KEY|SEARCH domain_counts USING INDEX sqlite_autoindex_domain_counts_1 \(domain[<>=]/,
    );
  }
}

describe('domain scopes', () => {
  const cases: [string, string, Record<string, unknown>, (data: any) => void][] = [
    ['mustRead', 'query($d: String!) { mustRead(domain: $d) { id domain state } }', { d: 'acme/checkout' },
      (data) => expect(data.mustRead.map((t: { domain: string }) => t.domain).sort()).toEqual(['acme/checkout', 'acme/checkout/billing'])],
    ['memories', 'query($d: String!) { memories(domain: $d, first: 20) { totalCount nodes { domain } } }', { d: 'acme/checkout' },
      (data) => expect(data.memories.totalCount).toBe(4)],
    ['memories(kind, status)', 'query($d: String!) { memories(domain: $d, kind: TASK, status: ACTIVE, first: 20) { totalCount } }', { d: 'acme/checkout' },
      (data) => expect(data.memories.totalCount).toBe(2)],
    ['domains(under:)', 'query($d: String!) { domains(under: $d) { path tasks openTasks notes } }', { d: 'acme/checkout' },
      (data) => expect(data.domains.map((d: { path: string }) => d.path)).toEqual(['acme/checkout', 'acme/checkout/billing'])],
    ['search(domain:)', 'query($d: String!) { search(query: "refunds", domain: $d) { totalCount } }', { d: 'acme/checkout' },
      (data) => expect(data.search.totalCount).toBe(2)],
  ];
  it('the open tasks of several domains at once (a reminder, endTurn) read one index range per domain', async () => {
    captured = [];
    capturing = true;
    const tasks = await openTasksIn(server.app.services.db.reader, ['acme/checkout', 'other/team'], 50);
    capturing = false;
    expect(tasks.map((task) => task.domain).sort()).toEqual(['acme/checkout', 'acme/checkout/billing', 'other/team']);
    expect(captured).toHaveLength(1);
    const plan = await planOf(captured[0].sql, captured[0].parameters);
    expectIndexedRead(plan);
    // Each domain is its own range: OR-ed ranges made SQLite read the open-tasks index by state alone, every open task.
    if (!postgres) {
      const searches = plan.filter((line) => /^SEARCH m\b/.test(line));
      expect(searches, plan.join('\n')).toHaveLength(2);
      for (const line of searches) expect(line, plan.join('\n')).toMatch(/domain>\?/);
    }
  });

  it('the ready queue (claimNext, ready) reads the scope\'s ready items from their own table, through its index', async () => {
    captured = [];
    capturing = true;
    const ready = await readyItems(server.app.services.db.reader, 'acme/checkout', { limit: 1 });
    capturing = false;
    expect(ready.map((entry) => entry.domain)).toEqual(['acme/checkout']);
    expect(captured).toHaveLength(1);
    const plan = await planOf(captured[0].sql, captured[0].parameters);
    const text = plan.join('\n');
    // Never a walk of every memory or every item: the ready items are rows of their own (kept by every task write),
    // read for the scope's domains from their index.
    if (postgres) {
      expect(text, text).toMatch(/(Index (Only )?Scan|Bitmap Index Scan) (using|on) idx_ready_items_\w+/);
      expect(text, text).not.toMatch(/Seq Scan on (ready_items|memories|items)/);
    } else {
      expect(text, text).toMatch(/SEARCH r USING (COVERING )?INDEX idx_ready_items_spread \(domain[=>]/);
      expect(text, text).not.toMatch(/SCAN (m|i|r)\b/);
    }
  });

  for (const [name, query, variables, check] of cases) {
    it(`${name} holds exactly the domain and below, read through an index`, async () => {
      const { data, scoped } = await scopeStatements(query, variables);
      check(data);
      for (const statement of scoped) expectIndexedRead(await planOf(statement.sql, statement.parameters));
    });
  }
});
