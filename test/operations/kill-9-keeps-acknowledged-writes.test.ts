/**
 * The built server killed (SIGKILL) in the middle of concurrent writes loses
 * no acknowledged write, half-records none, and starts again on the same file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startBuiltServer, type BuiltServer } from '../built-server.js';
import { Database } from '../../src/db/database.js';
import { loadConfig } from '../../src/config.js';

const running: BuiltServer[] = [];
afterAll(() => {
  for (const server of running) if (server.process.exitCode === null && server.process.signalCode === null) server.process.kill('SIGKILL');
});

describe('a crash during writes', () => {
  it('keeps every acknowledged write, each whole, and the database intact', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-crash-'));
    const file = path.join(dir, 'crash.sqlite');
    const first = await startBuiltServer(`sqlite:${file}`, dir);
    running.push(first);
    const created = await first.graphql('mutation { createTask(input: { title: "Crash", goal: "g", domain: "ops/crash", items: ["Start"] }) { task { id } } }');
    const taskId = created.data.createTask.task.id;

    const acknowledged: string[] = [];
    let answered = 0;
    const crashed = new Promise<void>((resolve) => {
      const sends = Array.from({ length: 80 }, (_, i) => `Write ${i}`).map(async (label) => {
        try {
          const result = await first.graphql('mutation($input: AddItemsInput!) { addItems(input: $input) { items { id } } }', { input: { taskId, items: [label] } });
          if (!result.errors) acknowledged.push(label);
        } catch {
          // the connection died with the process: not acknowledged
        }
        answered += 1;
        if (answered === 20) {
          first.process.kill('SIGKILL');
          resolve();
        }
      });
      void Promise.allSettled(sends).then(() => resolve());
    });
    await crashed;
    await first.exited();
    expect(acknowledged.length).toBeGreaterThan(0);

    const second = await startBuiltServer(`sqlite:${file}`, dir);
    running.push(second);
    const read = await second.graphql(`query($id: ID!) { task(id: $id) { version items(first: 200) { nodes { text } } history(first: 200) { totalCount nodes { action items { text } } } } }`, { id: taskId });
    const { task } = read.data;
    const labels: string[] = task.items.nodes.map((item: { text: string }) => item.text);
    for (const label of acknowledged) expect(labels.filter((text) => text === label), label).toHaveLength(1);
    // Every write that made it is whole: one item, one history row, one version step each.
    expect(labels.length).toBe(1 + task.history.nodes.filter((event: { action: string }) => event.action === 'ITEMS_ADDED').length);
    expect(task.version).toBe(task.history.totalCount);
    expect(task.history.nodes.at(-1).items.map((item: { text: string }) => item.text)).toEqual(labels);

    second.process.kill('SIGTERM');
    await second.exited();
    const raw = new Sqlite(file, { readonly: true });
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    // The task row's kept counts survived the crash with its items: they equal a recount.
    const kept = raw.prepare('SELECT "pendingItems", "doneItems", "taskState" FROM "memories" WHERE "id" = ?').get(Number(taskId));
    const recount = raw.prepare(`SELECT SUM("state" = 'PENDING') AS "pendingItems", SUM("state" = 'DONE') AS "doneItems" FROM "items" WHERE "taskId" = ? AND NOT "deleted"`).get(Number(taskId)) as Record<string, number>;
    expect(kept).toEqual({ ...recount, taskState: 'OPEN' });
    expect(recount.pendingItems).toBe(labels.length);
    raw.close();
  });
});

describe('what a commit waits for on SQLite', () => {
  /** SQLite's own number for the writer's setting: 1 is NORMAL (WAL synced at checkpoints), 2 is FULL (synced at every commit). */
  const synchronousOf = async (env: Record<string, string>) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-sync-'));
    const db = await Database.open(`sqlite:${path.join(dir, 'sync.sqlite')}`, { synchronous: loadConfig(env).sqliteSynchronous });
    try {
      const [row] = await db.transaction((manager) => manager.query('PRAGMA synchronous'));
      return Number(row.synchronous);
    } finally {
      await db.close();
    }
  };

  it('is NORMAL by default (the crash above loses nothing acknowledged) and FULL when asked', async () => {
    expect(await synchronousOf({})).toBe(1);
    expect(await synchronousOf({ TASKBASE_SQLITE_SYNCHRONOUS: 'full' })).toBe(2);
  });

  it('refuses a setting it does not know, naming the ones it does', () => {
    expect(() => loadConfig({ TASKBASE_SQLITE_SYNCHRONOUS: 'off' })).toThrow('TASKBASE_SQLITE_SYNCHRONOUS is "normal" or "full"; got "off"');
  });
});
