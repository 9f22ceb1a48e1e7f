/**
 * plan-and-finish's finish, called through the MCP SDK's client over HTTP,
 * answers with the list its own write checked: finishSession returns the
 * plan's items from the transaction that finished, so the tool does not read
 * the plan again on the read connection, and the list it shows is the one that
 * was found settled.
 */
import { expect, it } from 'vitest';
import { serverWithMcp } from '../fixtures/mcp.js';

let reads = 0;
const { mcp } = serverWithMcp({ tools: 'plan-and-finish', over: 'http', onReadQuery: () => { reads += 1; } });

it('finish shows the settled list without reading it again after the write', { timeout: 60_000 }, async () => {
  await mcp.ok('plan_tasks', { tasks: ['Reproduce the crash', 'Fix the parser', 'Run the suite'] });
  await mcp.ok('update_task', { task_id: 1, status: 'done' });
  await mcp.ok('update_task', { task_id: 2, status: 'dropped', note: 'The parser was fine; the input was wrong.' });
  await mcp.ok('update_task', { task_id: 3, status: 'done' });
  reads = 0;
  const finished = await mcp.ok('finish', {});
  const readsDuringFinish = reads;
  expect(finished.data.summary).toBe('3 tasks: 2 done, 1 dropped.');
  expect(finished.data.tasks.map((task: { id: number; status: string }) => `${task.id} ${task.status}`)).toEqual(['1 done', '2 dropped', '3 done']);
  expect(finished.text).toContain('The parser was fine; the input was wrong.');
  // Everything finish shows came from its write's own transaction: at most the
  // session lookup every call makes reaches the read connection (reading the
  // plan back after the write cost three more, four in all).
  expect(readsDuringFinish).toBeLessThanOrEqual(1);
});
