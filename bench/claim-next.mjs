/**
 * The claimNext workload: AGENTS agents (sessions of their own, one
 * connection each) take the ready items of one domain as fast as they can,
 * for the run's duration or until none is left. It cannot be an autocannon
 * workload: each request's answer matters (which item), and the figure that
 * counts most is how many items were handed out twice (must be 0).
 */
import { Agent, request } from 'node:http';

export const AGENTS = 50;
const DOMAIN = 'bench/claims';
const TASKS = 50;
const ITEMS_PER_TASK = 100;
/** A session holds at most 100 live claims (src/domain/claims.ts): an agent stops there. */
const CLAIMS_PER_AGENT = 100;

const CLAIM_NEXT = `mutation($domain: String!) { claimNext(domain: $domain, ttlSeconds: 900) { id } }`;

/** Fills the domain with TASKS × ITEMS_PER_TASK ready items (AGENTS × CLAIMS_PER_AGENT in all) and starts the agents' sessions. */
export async function prepareClaimNext(call) {
  for (let t = 0; t < TASKS; t += 1) {
    const items = Array.from({ length: ITEMS_PER_TASK }, (_, i) => `Backlog ${t} item ${i + 1}`);
    await call(`mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } } }`, {
      input: { title: `Backlog ${t}`, goal: 'Agents work it down.', items, domain: DOMAIN },
    });
  }
  const sessions = [];
  for (let a = 0; a < AGENTS; a += 1) sessions.push((await call(`mutation { startSession { id } }`, {})).startSession.id);
  return sessions;
}

/** One claimNext as `session` on a kept-alive connection: the item id (null when none is ready) and how long it took. */
function claimOnce(url, agent, session) {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ query: CLAIM_NEXT, variables: { domain: DOMAIN } });
    const sent = performance.now();
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-session-id': session } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => {
        const took = performance.now() - sent;
        try {
          const answer = JSON.parse(text);
          if (res.statusCode !== 200 || answer.errors?.length) return resolve({ took, failed: true, id: null });
          resolve({ took, failed: false, id: answer.data.claimNext?.id ?? null });
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Runs the agents for warm-up + duration seconds (or until nothing is ready)
 * and measures what was sent after the warm-up: req/s, p50, p99, failures,
 * and items handed out twice over the whole run.
 */
export async function runClaimNext(serverUrl, sessions, { warmup, duration }) {
  const url = new URL(serverUrl);
  const startedAt = performance.now();
  const measuredFrom = startedAt + warmup * 1000;
  const endsAt = measuredFrom + duration * 1000;
  const handed = [];
  const measured = [];
  let failed = 0;
  let lastAnswer = measuredFrom;
  await Promise.all(sessions.map(async (session) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let held = 0; held < CLAIMS_PER_AGENT && performance.now() < endsAt; ) {
        const sent = performance.now();
        const { took, failed: refused, id } = await claimOnce(url, agent, session);
        if (sent >= measuredFrom) {
          measured.push(took);
          lastAnswer = Math.max(lastAnswer, performance.now());
        }
        if (refused) { failed += 1; continue; }
        if (id === null) return;
        handed.push(id);
        held += 1;
      }
    } finally {
      agent.destroy();
    }
  }));
  const seconds = Math.max(0.001, (Math.min(endsAt, lastAnswer) - measuredFrom) / 1000);
  const latencies = measured.sort((a, b) => a - b);
  const percentile = (q) => (latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]) : null);
  return {
    reqPerSec: measured.length / seconds, p50: percentile(0.5), p99: percentile(0.99), requests: measured.length,
    non2xx: failed, errors: 0, handedOut: handed.length, handedTwice: handed.length - new Set(handed).size,
  };
}
