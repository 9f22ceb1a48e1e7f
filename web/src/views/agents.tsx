import { useEffect, useState } from 'preact/hooks';
import { useQuery, useSubscription } from '../live';
import { sessionLabel } from '../session-name';
import { STATE_LABEL, isStuck } from '../states';
import { Loading, useTitle, when } from '../widgets';
import { SteeringMark } from '../steering';
import { NewMark, useUnread } from '../since-looked';
import { IDLE_AFTER_MS, STALE_AFTER_MS, agentNow, ago, byNeed, duration, type AgentClaim, type AgentItem, type AgentNow, type AgentSession } from '../agent-status';
import { summaryLine, type ChecklistItem } from '../../../src/domain/plan-render';

const STEP = 'id number text state note updatedAt';
// Written out here (not steering.tsx's STEERING_FIELDS): the tests read this file's documents from its own constants.
const STEERING = 'steering { at action itemId itemText seen seenAt session { id name } }';
const WORKING_ROW = `id name preset createdAt lastActiveAt statusLine ${STEERING}
  claims { ${STEP} task { id title domain } claim { claimedAt expiresAt } ready }
  plan { id items(first: 200) { nodes { ${STEP} } } }`;
const FINISHED_ROW = 'id name preset createdAt finishedAt statusLine plan { id items(first: 200) { nodes { id number text state note added deleted } } }';
/**
 * Every working session with what it holds, and the latest finished ones, in
 * one request that costs a fixed number of SQL statements however many
 * sessions it shows (test/dashboard/agents-now-costs-fixed-statements.test.ts). A
 * claimed item says only whether it waits (ready): what it waits for is a
 * list per item, which at 200 sessions of 20 claims would pass the query's
 * size limit; the item's page shows it.
 */
const AGENTS = `query($working: Int!, $finished: Int!) {
  working: sessions(first: $working, finished: false) { totalCount nodes { ${WORKING_ROW} } }
  finished: sessions(first: $finished, finished: true) { totalCount nodes { ${FINISHED_ROW} } } }`;
const SESSIONS_LIVE = 'subscription { sessionChanged { sessionId action } }';
// Claims and the items they hold change in domains: this hears them too.
const DOMAINS_LIVE = 'subscription { domainChanged { memoryId action } }';
/** A session of FINISHED_ROW. */
interface FinishedSession {
  id: string; name: string | null; preset: string; createdAt: string; finishedAt: string; statusLine: string;
  plan: { id: string; items: { nodes: (Omit<ChecklistItem, 'id'> & { id: string; number: number | null })[] } } | null;
}
interface AgentsAnswer { working: { totalCount: number; nodes: AgentSession[] }; finished: { totalCount: number; nodes: FinishedSession[] } }
/** A stuck step of the plan, or a stuck claimed item (which names its task and whether it waits). */
type StuckItem = AgentItem & { task?: AgentClaim['task']; ready?: boolean };

const WORKING = 200;
const FINISHED = 10;

const TOOL_SET: Record<string, string> = { WHOLE_LIST: 'whole-list', STEP_OPS: 'step-ops', PLAN_AND_FINISH: 'plan-and-finish' };
const FLAG_TEXT = { stuck: 'Stuck', stale: 'Stale', idle: 'Idle', working: 'Working' } as const;
const FLAG_TITLE = {
  stuck: 'A step or claimed item is blocked, failed or waiting: it needs a person',
  stale: `Nothing recorded for ${STALE_AFTER_MS / 60_000} min or more`,
  idle: `Nothing recorded for ${IDLE_AFTER_MS / 60_000} min or more`,
  working: 'Recorded something in the last few minutes',
} as const;

/** Relative times move on without a reread: a tick every 30 s while the view is open. */
function useMinuteClock(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** The home page of a person steering agents: who is doing what now, the stuck and the quiet first, then what finished lately. */
export function AgentsView() {
  useTitle('Agents now');
  const read = useQuery<AgentsAnswer>(AGENTS, { working: WORKING, finished: FINISHED }, { query: SESSIONS_LIVE, variables: {} });
  useSubscription(DOMAINS_LIVE, {}, () => read.reload());
  const clock = useMinuteClock();
  const data = read.data;
  if (!data) return <section class="agents"><h2 tabIndex={-1}>Agents now</h2><Loading error={read.error} /></section>;
  const now = Math.max(clock, Date.now());
  const agents: AgentNow[] = data.working.nodes.map((session) => agentNow(session, now)).sort(byNeed);
  const counts = { stuck: 0, stale: 0, idle: 0, working: 0 };
  for (const agent of agents) counts[agent.flag] += 1;
  const finished = [...data.finished.nodes].sort((a, b) => Date.parse(b.finishedAt) - Date.parse(a.finishedAt));
  return (
    <section class="agents" aria-labelledby="agents-heading">
      <h2 id="agents-heading" tabIndex={-1}>Agents now <span class="count">({data.working.totalCount} working)</span></h2>
      <p class="muted small" aria-label="Agents by what they need">
        {counts.stuck} stuck · {counts.stale} stale · {counts.idle} idle · {counts.working} working
        {data.working.totalCount > agents.length ? ` · the newest ${agents.length} shown` : ''}
      </p>
      {agents.length === 0 ? <p class="muted">No agent is working now. A session shows here from its start until it finishes.</p> : (
        <table class="agents-table">
          <caption class="sr">Working agents, what needs a person first</caption>
          <thead><tr><th scope="col">Agent</th><th scope="col">State</th><th scope="col">Holds</th><th scope="col">Stuck on</th><th scope="col">Last activity</th></tr></thead>
          <tbody>{agents.map((agent) => <AgentRow agent={agent} now={now} />)}</tbody>
        </table>
      )}
      <h3 id="finished-heading">Finished lately</h3>
      {finished.length === 0 ? <p class="muted">No session has finished yet.</p> : (
        <ul class="finished-agents" aria-labelledby="finished-heading">
          {finished.map((session) => (
            <li>
              <a href={`#/sessions/${session.id}`} title={session.id}>{sessionLabel(session)}</a>{' '}
              <span class="muted small">{TOOL_SET[session.preset]} · finished <time dateTime={session.finishedAt} title={when(session.finishedAt)}>{ago(now - Date.parse(session.finishedAt))}</time></span>
              <div class="small">{finishSummary(session)}</div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** What a finished session left: plan-and-finish's own finish summary ("4 tasks: 3 done, 1 blocked."), else its counts; "no plan written" without one. */
function finishSummary(session: FinishedSession): string {
  const all: ChecklistItem[] | null = session.plan
    ? session.plan.items.nodes.map((item) => ({ ...item, id: Number(item.id) }))
    : null;
  if (!all || all.every((item) => item.deleted)) return 'No plan written.';
  if (session.preset === 'PLAN_AND_FINISH') return summaryLine(all);
  const live = all.filter((item) => !item.deleted);
  const parts = (['DONE', 'BLOCKED', 'FAILED', 'DROPPED', 'IN_PROGRESS', 'PENDING'] as const).flatMap((state) => {
    const count = live.filter((item) => item.state === state).length;
    return count ? [`${count} ${STATE_LABEL[state].toLowerCase()}`] : [];
  });
  return `${live.length} step${live.length === 1 ? '' : 's'}: ${parts.join(', ')}.`;
}

/** "for 12 min", or "just now" for what started in the last minute. */
function heldFor(ms: number): string {
  return ms < 60_000 ? 'just now' : `for ${duration(ms)}`;
}

function stepLabel(item: AgentItem): string {
  return `${item.number === null ? '' : `#${item.number} `}${item.text}`;
}

function AgentRow({ agent, now }: { agent: AgentNow; now: number }) {
  const { session, flag } = agent;
  const planHref = (item: AgentItem) => (session.plan ? `#/task/${session.plan.id}?item=${item.id}` : `#/sessions/${session.id}`);
  const unread = useUnread();
  return (
    <tr class={`agent ${flag}`} data-session={session.id}>
      <th scope="row">
        <a href={`#/sessions/${session.id}`} title={session.id}>{sessionLabel(session)}</a>{unread(new Date(agent.lastActivity).toISOString()) && <> <NewMark /></>}
        <div class="muted small">{TOOL_SET[session.preset] ?? session.preset} · {session.statusLine}</div>
      </th>
      <td><span class={`flag ${flag}`} title={FLAG_TITLE[flag]}>{FLAG_TEXT[flag]}</span></td>
      <td>
        {session.claims.length === 0 && agent.doing.length === 0 && <span class="muted small">{session.plan ? 'nothing in progress' : 'no plan written yet'}</span>}
        <ul class="holds">
          {session.claims.map((item) => (
            <li>Claim <a href={`#/task/${item.task.id}?item=${item.id}`}>{stepLabel(item)}</a>{' '}
              <span class="muted small">in {item.task.title} · {heldFor(now - Date.parse(item.claim?.claimedAt ?? item.updatedAt))}</span></li>
          ))}
          {agent.doing.map((item) => (
            <li>{STATE_LABEL.IN_PROGRESS} <a href={planHref(item)}>{stepLabel(item)}</a>{' '}
              <span class="muted small">{heldFor(now - Date.parse(item.updatedAt))}</span></li>
          ))}
        </ul>
        {session.steering && <div class="steered"><SteeringMark steering={session.steering} what /></div>}
      </td>
      <td>
        {agent.stuck.length > 0 && (
          <ul class="stuck-steps">
            {agent.stuck.map((item: StuckItem) => (
              <li><span class={`state ${item.ready === false && !isStuck(item.state) ? 'stuck' : item.state}`}>{item.ready === false && !isStuck(item.state) ? 'Waits' : STATE_LABEL[item.state]}</span>{' '}
                <a href={item.task ? `#/task/${item.task.id}?item=${item.id}` : planHref(item)}>{stepLabel(item)}</a>
                {waitsOn(item) && <div class="small">waits on: {waitsOn(item)}</div>}
              </li>
            ))}
          </ul>
        )}
      </td>
      <td><time dateTime={new Date(agent.lastActivity).toISOString()} title={when(new Date(agent.lastActivity).toISOString())}>{ago(now - agent.lastActivity)}</time></td>
    </tr>
  );
}

/** What a stuck item waits on: the reason given when it was set, and for a claimed item, unfinished items it depends on. */
function waitsOn(item: StuckItem): string {
  const waits = item.ready === false && (item.state === 'PENDING' || item.state === 'IN_PROGRESS') ? 'unfinished items it depends on (open it to see which)' : null;
  return [item.note, waits].filter(Boolean).join('; ') || (item.state === 'BLOCKED' || item.state === 'FAILED' ? 'no reason given' : '');
}
