import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Session } from 'node:inspector/promises';
import type { OpenOptions } from '../db/database.js';
import { keepCommittedReads } from '../services/kernel/committed-cache.js';

type ProbeMessage = { type?: string; file?: string; on?: boolean };
type Statement = { sql: string; parameters: readonly unknown[] };

/**
 * `npm run bench` starts the built server with TASKBASE_BENCH_PROBE=1 and an
 * IPC channel: the server then counts every SQL statement it sends (both
 * connections) and answers the bench's `probe` messages with that count and
 * its peak RSS. With `--profile`, the bench also asks it to record a CPU
 * profile around one workload (`profile-start`, then `profile-stop` with the
 * file to write), through the inspector in this process, so each workload
 * gets a profile of its own. Between `record-start` and `record-stop`, the
 * statements (SQL and parameters) of the requests sent with the header
 * `x-bench-record: 1` are kept and handed back, and only theirs (the change
 * feed's and the webhooks' own reads run meanwhile): the bench replays one
 * request's SQL with the driver alone (bench/raw-server.mjs), so its raw
 * reference runs the very SQL the server ran, whoever changes it.
 * `keep-reads` with `on: false` stops the reads kept until a commit
 * (services/kernel/committed-cache.ts) from keeping anything, so the bench
 * measures what such a read costs when it is read again in full; `on: true`
 * keeps them again.
 * Off (no listener, no cost) in every other run.
 */
export function benchProbe(env: NodeJS.ProcessEnv = process.env): Pick<OpenOptions, 'onQuery'> {
  if (env.TASKBASE_BENCH_PROBE !== '1' || typeof process.send !== 'function') return {};
  let statements = 0;
  let recorded: Statement[] | null = null;
  // Which request a statement belongs to: set as each HTTP request starts, carried through its promises. Only while
  // recording: an AsyncLocalStorage in use hooks every promise of the process, which the measured runs must not pay.
  let recording: AsyncLocalStorage<Statement[] | undefined> | null = null;
  diagnostics.subscribe('http.server.request.start', (message) => {
    if (!recording) return;
    const { request } = message as { request: IncomingMessage };
    recording.enterWith(recorded && request.headers['x-bench-record'] === '1' ? recorded : undefined);
  });
  const reply = (message: object) => process.send!(message);
  const profiles = cpuProfiles(reply);
  process.on('message', (message: ProbeMessage) => {
    if (message?.type === 'probe') {
      reply({ type: 'probe', statements, maxRssKb: process.resourceUsage().maxRSS, rssBytes: process.memoryUsage.rss() });
    } else if (message?.type === 'record-start') {
      recorded = [];
      recording = new AsyncLocalStorage();
      reply({ type: 'record-started' });
    } else if (message?.type === 'record-stop') {
      reply({ type: 'record-stopped', statements: recorded ?? [] });
      recorded = null;
      recording?.disable();
      recording = null;
    } else if (message?.type === 'keep-reads') {
      keepCommittedReads(message.on !== false);
      reply({ type: 'keep-reads-set' });
    } else {
      profiles(message);
    }
  });
  return {
    onQuery: (sql, parameters) => {
      statements += 1;
      // Parameters go over IPC as JSON: a bigint as its digits.
      recording?.getStore()?.push({ sql, parameters: (parameters ?? []).map((value) => (typeof value === 'bigint' ? value.toString() : value)) });
    },
  };
}

/**
 * The bench's `profile-start` and `profile-stop` messages, answered: a CPU profile of this process through its own
 * inspector, sampled every 0.2 ms, written to the file `profile-stop` names. Used by the server's probe above and by
 * the bench's raw server (bench/raw-server.mjs), so a raw reference can be profiled the same way.
 */
export function cpuProfiles(reply: (message: object) => void): (message: ProbeMessage) => void {
  let inspector: Session | null = null;
  return (message) => {
    if (message?.type === 'profile-start') {
      void (async () => {
        inspector = new Session();
        inspector.connect();
        await inspector.post('Profiler.enable');
        await inspector.post('Profiler.setSamplingInterval', { interval: 200 });
        await inspector.post('Profiler.start');
        reply({ type: 'profile-started' });
      })();
    } else if (message?.type === 'profile-stop' && inspector && message.file) {
      const session = inspector;
      const file = message.file;
      inspector = null;
      void (async () => {
        const { profile } = await session.post('Profiler.stop');
        session.disconnect();
        fs.writeFileSync(file, JSON.stringify(profile));
        reply({ type: 'profile-stopped', file });
      })();
    }
  };
}
