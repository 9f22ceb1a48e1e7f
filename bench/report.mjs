/**
 * The bench's table, and BENCHMARKS.md's generated parts: each (database,
 * scale) keeps its latest table between markers, and the targets table is
 * recomputed from the latest SQLite runs. Everything outside the markers is
 * written by hand.
 */
import fs from 'node:fs';
import path from 'node:path';

const fixed = (value, digits) => (value === null || value === undefined ? '–' : value.toFixed(digits));

export function table(run) {
  const lines = [
    `${run.db}, --scale ${run.scale}, ${run.connections} connections, ${run.duration} s per workload, ${run.date.slice(0, 16).replace('T', ' ')} UTC`,
    '',
    '| workload | req/s | p50 ms | p99 ms | one at a time p50 ms | × floor | × raw | SQL / request | server peak RSS MB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of run.results) {
    const failed = r.non2xx + r.errors ? ` (${r.non2xx + r.errors} failed)` : '';
    // autocannon stops at the duration: a workload whose every request was still queued then has no latency at all.
    const none = r.requests === 0;
    const latency = (ms) => (none ? `> ${run.duration * 1000}` : ms);
    lines.push(`| ${r.name}${failed}${none ? ' (no answer within the run)' : ''} | ${r.reqPerSec.toFixed(0)} | ${latency(r.p50)} | ${latency(r.p99)} | ${r.aloneP50 ?? '–'} | ${fixed(r.ratioToFloor, 2)} | ${fixed(r.ratioToRaw, 2)} | ${fixed(r.statementsPerRequest, 1)} | ${r.peakRssMb} |`);
  }
  lines.push('', `Database built in ${run.buildSeconds.toFixed(0)} s; the whole run took ${run.totalSeconds.toFixed(0)} s. Machine: ${run.machine.cores} × ${run.machine.cpu}, ${run.machine.memoryGb} GB, Node ${run.machine.node}, ${run.machine.os}.`);
  return lines.join('\n');
}

function latest(root, db, scale) {
  const dir = path.join(root, 'bench/results');
  if (!fs.existsSync(dir)) return null;
  const runs = fs.readdirSync(dir).filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')))
    .filter((r) => r.db === db && r.scale === scale)
    .sort((a, b) => (a.date < b.date ? 1 : -1));
  return runs[0] ?? null;
}

const find = (run, prefix) => run?.results.find((r) => r.name.startsWith(prefix)) ?? null;

/** Every target of issue 11 with the figure measured against it. */
export function targets(root) {
  const large = latest(root, 'sqlite', 'large');
  const small = latest(root, 'sqlite', 'small');
  const rows = [];
  const add = (target, figure, met) => rows.push(`| ${target} | ${figure} | ${met === null ? 'not measured' : met ? 'met' : '**short**'} |`);
  const ratio = (name, min) => {
    const r = find(large, name);
    // Beside a workload with a raw reference, what that plain handler of the same SQL reaches against the same floor.
    const raw = r?.raw ? find(large, r.raw) : null;
    const reference = raw ? `; the raw handler of its SQL: ${raw.ratioToFloor.toFixed(2)} ×` : '';
    add(`${name} ≥ ${min} × floor`, r ? `${r.ratioToFloor.toFixed(2)} × (${r.reqPerSec.toFixed(0)} req/s${reference})` : '–', r ? r.ratioToFloor >= min : null);
  };
  ratio('dashboard read', 0.5);
  ratio('updateItem', 0.3);
  ratio('mustRead', 0.25);
  const p1 = find(large, 'memories page 1 ');
  const deep = large?.results.find((r) => r.name.startsWith('memories page') && !r.name.startsWith('memories page 1 '));
  // p50 under load when both answered enough requests in the run for a median to mean something;
  // else one request at a time (what each costs alone).
  const enough = (r) => r.requests >= 100;
  const p50 = (r, other) => (enough(r) && enough(other) ? [r.p50, 'under load'] : [r.aloneP50 ?? r.p50, 'one at a time']);
  const compare = (a, b) => {
    const [x, how] = p50(a, b);
    const [y] = p50(b, a);
    return { text: `${x} ms vs ${y} ms, ${how} (${(x / Math.max(y, 1)).toFixed(2)} ×)`, ratio: x / Math.max(y, 1) };
  };
  const deepVsFirst = p1 && deep ? compare(deep, p1) : null;
  add('memories deep page p50 ≤ 1.3 × page 1', deepVsFirst ? `${deep.name}: ${deepVsFirst.text}` : '–', deepVsFirst ? deepVsFirst.ratio <= 1.3 : null);
  for (const name of ['mustRead', 'search', 'endTurn']) {
    const r = find(large, name);
    add(`${name} p99 < 50 ms at 100,000 tasks`, r ? (r.requests ? `${r.p99} ms` : `no answer within ${large.duration} s`) : '–', r ? r.requests > 0 && r.p99 < 50 : null);
  }
  const mrLarge = find(large, 'mustRead');
  const mrSmall = find(small, 'mustRead');
  const largeVsSmall = mrLarge && mrSmall ? compare(mrLarge, mrSmall) : null;
  add('mustRead at 100,000 tasks ≤ 1.5 × at 1,000 (p50)', largeVsSmall ? largeVsSmall.text : '–', largeVsSmall ? largeVsSmall.ratio <= 1.5 : null);
  const dash = find(large, 'dashboard read');
  add('≤ 8 SQL statements per dashboard read (the head and first page the page reads)', dash ? `${dash.statementsPerRequest}` : '–', dash ? dash.statementsPerRequest <= 8 : null);
  const rss = large ? Math.max(...large.results.filter((r) => r.kind === 'server').map((r) => r.peakRssMb)) : null;
  add('server RSS under load ≤ 300 MB', rss === null ? '–' : `${rss} MB`, rss === null ? null : rss <= 300);
  add('large bench under 15 minutes', large ? `${(large.totalSeconds / 60).toFixed(1)} min (database build ${(large.buildSeconds / 60).toFixed(1)} min)` : '–', large ? large.totalSeconds < 900 : null);
  return ['| target (SQLite, --scale large) | measured | |', '|---|---|---|', ...rows].join('\n');
}

function replaceBetween(text, key, content) {
  const start = `<!-- ${key}:start -->`;
  const end = `<!-- ${key}:end -->`;
  const block = `${start}\n${content}\n${end}`;
  const at = text.indexOf(start);
  if (at === -1) return `${text.trimEnd()}\n\n${block}\n`;
  return text.slice(0, at) + block + text.slice(text.indexOf(end, at) + end.length);
}

/** Writes the run's table (and the targets) into BENCHMARKS.md; returns the table. */
export function writeReport(root, run) {
  const file = path.join(root, 'BENCHMARKS.md');
  let text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n';
  const tableText = table(run);
  text = replaceBetween(text, `results:${run.db}-${run.scale}`, tableText);
  text = replaceBetween(text, 'targets', targets(root));
  fs.writeFileSync(file, text);
  return tableText;
}
