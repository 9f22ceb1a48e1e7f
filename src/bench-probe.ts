import type { OpenOptions } from './db/database.js';

/**
 * `npm run bench` starts the built server with TASKBASE_BENCH_PROBE=1 and an
 * IPC channel: the server then counts every SQL statement it sends (both
 * connections) and answers the bench's `probe` messages with that count and
 * its peak RSS. Off (no listener, no cost) in every other run.
 */
export function benchProbe(env: NodeJS.ProcessEnv = process.env): Pick<OpenOptions, 'onQuery'> {
  if (env.TASKBASE_BENCH_PROBE !== '1' || typeof process.send !== 'function') return {};
  let statements = 0;
  process.on('message', (message: { type?: string }) => {
    if (message?.type !== 'probe') return;
    process.send!({ type: 'probe', statements, maxRssKb: process.resourceUsage().maxRSS, rssBytes: process.memoryUsage.rss() });
  });
  return { onQuery: () => { statements += 1; } };
}
