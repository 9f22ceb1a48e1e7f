import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { TestServer } from './harness.js';

/**
 * Every row of every table (FTS shadow tables included), as counts per table
 * and one digest: equal before and after means nothing at all was recorded.
 */
export async function databaseState(server: TestServer): Promise<{ counts: Record<string, number>; digest: string }> {
  const reader = server.app.services.db.reader;
  const postgres = server.app.services.db.kind === 'postgres';
  const tables: { name: string }[] = await reader.query(
    postgres
      ? `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`
      : `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
  );
  const counts: Record<string, number> = {};
  const hash = createHash('sha256');
  for (const { name } of tables) {
    let rows: unknown[];
    if (postgres) {
      rows = await reader.query(`SELECT * FROM "${name}" t ORDER BY t::text`);
    } else {
      try {
        rows = await reader.query(`SELECT rowid AS "__rowid", * FROM "${name}" ORDER BY rowid`);
      } catch {
        rows = await reader.query(`SELECT * FROM "${name}"`);
      }
    }
    counts[name] = rows.length;
    hash.update(name).update(JSON.stringify(rows, (_key, value) => (Buffer.isBuffer(value) ? value.toString('hex') : value)));
  }
  return { counts, digest: hash.digest('hex') };
}

/** Sends `query`, expects the refusal `code`, and checks that not one row anywhere changed. Returns the message. */
export async function refusedAndNothingRecorded(
  server: TestServer,
  code: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<string> {
  const before = await databaseState(server);
  const error = await server.refused(query, variables);
  expect(error.code, error.message).toBe(code);
  const after = await databaseState(server);
  expect(after.counts).toEqual(before.counts);
  expect(after.digest, 'a refused call changed a row').toBe(before.digest);
  return error.message;
}

