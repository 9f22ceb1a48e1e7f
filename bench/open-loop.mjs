/**
 * Latency at a fixed offered rate, open loop: request i is due at
 * start + i / rate whatever happened to the ones before it, and its latency
 * is counted from when it was due, not from when a free connection sent it
 * (so a server, or a client, that falls behind shows as latency, as wrk2
 * counts it, instead of lowering the rate it is offered).
 *
 * autocannon's `overallRate` is not this: each connection sends back to back,
 * as in a closed loop, until it has made its share of the second's requests,
 * then waits for the next second. Every second began with all 32 connections
 * busy at once and the server's queue 32 deep, and that burst was the p50 and
 * p99 the bench reported "at a fixed rate" (domains() at a fifth of the
 * server's capacity: p50 15 ms, one at a time 6 ms).
 *
 *   const stats = await openLoop({ url, rate, warmup, duration, connections, next, ok });
 *
 * `next()` gives one request's { body, session }; `ok(status, text)` says
 * whether an answer succeeded. Requests go over at most `connections`
 * kept-alive connections; one due while all are busy waits for one (counted
 * in its latency). Only requests due after the warm-up are measured, and the
 * run waits for every one of them to be answered (up to `drainMs` after the
 * last is due), so the slowest are never left out.
 */
import http from 'node:http';

export async function openLoop({ url, rate, warmup, duration, connections, next, ok, drainMs = 30_000 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const target = new URL(url);
  const interval = 1000 / rate;
  const total = Math.ceil((warmup + duration) * rate);
  const measuredFrom = Math.ceil(warmup * rate);
  const latencies = [];
  let failed = 0;
  let errors = 0;
  let lastDone = 0;

  const send = (due, measured) => new Promise((resolve) => {
    const { body, session } = next();
    const text = JSON.stringify(body);
    const request = http.request({
      host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...(session ? { 'x-session-id': session } : {}) },
    }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        const done = performance.now();
        if (measured) {
          lastDone = Math.max(lastDone, done);
          if (ok(response.statusCode, Buffer.concat(chunks).toString('utf8'))) latencies.push(done - due);
          else failed += 1;
        }
        resolve();
      });
    });
    request.on('error', () => { if (measured) errors += 1; resolve(); });
    request.end(text);
  });

  const start = performance.now() + 20;
  const pending = [];
  for (let i = 0; i < total;) {
    const now = performance.now();
    // Everything due by now goes out now; then sleep until the next one is due.
    for (; i < total && start + i * interval <= now; i += 1) pending.push(send(start + i * interval, i >= measuredFrom));
    if (i < total) await new Promise((resolve) => setTimeout(resolve, Math.max(0, start + i * interval - performance.now())));
  }
  const lastDue = start + (total - 1) * interval;
  await Promise.race([Promise.all(pending), new Promise((resolve) => setTimeout(resolve, drainMs).unref())]);
  agent.destroy();

  const sorted = latencies.sort((a, b) => a - b);
  const unanswered = total - measuredFrom - sorted.length - failed - errors;
  const percentile = (q) => (sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]) : null);
  // The rate answered: the measured answers over the time from the first measured request's due time to the last answer
  // (past the window when the server fell behind, so a backlog lowers it).
  const span = Math.max(lastDone, lastDue) - (start + measuredFrom * interval);
  return {
    reqPerSec: sorted.length / (span / 1000),
    p50: percentile(0.5), p99: percentile(0.99),
    requests: total - measuredFrom,
    non2xx: failed,
    errors: errors + unanswered,
  };
}
