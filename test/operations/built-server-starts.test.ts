/**
 * Starts the BUILT server as a new user would run it: Vitest transforms
 * sources itself, so only this catches what breaks the compiled ESM output
 * (an entity import cycle, missing decorator metadata).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startBuiltServer, type BuiltServer } from '../built-server.js';

let server: BuiltServer | null = null;
afterAll(() => {
  if (server && server.process.exitCode === null && server.process.signalCode === null) server.process.kill('SIGKILL');
});

describe('the built server', () => {
  it('starts on a fresh database, answers /healthz and GraphQL, and exits 0 on SIGTERM', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-startup-'));
    const dbDir = path.join(dir, 'not', 'yet', 'there');
    const dbFile = path.join(dbDir, 'taskbase.sqlite');
    server = await startBuiltServer(`sqlite:${dbFile}`, dir);
    expect(fs.existsSync(dbDir), 'the database folder was created').toBe(true);
    expect(fs.existsSync(dbFile), 'the database file was created').toBe(true);

    const created = await server.graphql(
      'mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id version } items { id number } } }',
      { input: { title: 'Start-up check', goal: 'The built server answers.', itemsText: 'Build\nStart', domain: 'ops/infra' } },
    );
    expect(created.errors).toBeUndefined();
    expect(created.data.createTask.task.version).toBe(1);
    expect(created.data.createTask.items.map((item: { number: number }) => item.number)).toEqual([1, 2]);
    const read = await server.graphql(`query($id: ID!) { task(id: $id) { title state items { nodes { text } } } }`, { id: created.data.createTask.task.id });
    expect(read.data.task).toEqual({ title: 'Start-up check', state: 'OPEN', items: { nodes: [{ text: 'Build' }, { text: 'Start' }] } });

    server.process.kill('SIGTERM');
    expect(await server.exited(), server.output()).toEqual({ code: 0, signal: null });
  });
});
