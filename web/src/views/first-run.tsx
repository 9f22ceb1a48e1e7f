import { useState } from 'preact/hooks';
import { canWrite, token } from '../api';
import { useQuery } from '../live';
import { useSignal } from '../signal';
import { useTitle } from '../widgets';
import { AgentsView } from './agents';

const EMPTY = '{ domains { path } sessions(first: 1) { totalCount } }';
const DOMAINS_LIVE = 'subscription { domainChanged { memoryId action } }';

/**
 * The home page: "Agents now", or, on a database with no memory and no
 * session yet, how to start: connect an agent, create a task, or load the demo.
 */
export function HomeView() {
  const empty = useQuery<{ domains: { path: string }[]; sessions: { totalCount: number } }>(EMPTY, {}, { query: DOMAINS_LIVE, variables: {} });
  const isEmpty = empty.data ? empty.data.domains.length === 0 && empty.data.sessions.totalCount === 0 : false;
  return isEmpty ? <FirstRun /> : <AgentsView />;
}

/** The MCP address of this server, with the tool sets most agents want. */
export function mcpUrl(): string {
  return `${location.origin}/mcp?tools=whole-list,knowledge-base`;
}

function FirstRun() {
  useTitle('Get started');
  const writable = useSignal(canWrite);
  const signedIn = Boolean(useSignal(token));
  const command = `claude mcp add --transport http taskbase "${mcpUrl()}"${signedIn ? ' --header "Authorization: Bearer <your token>"' : ''}`;
  return (
    <section class="first-run narrow" aria-labelledby="first-run-heading">
      <h2 id="first-run-heading" tabIndex={-1}>Nothing here yet</h2>
      <p>This database has no tasks, notes or agent sessions. Start one of three ways:</p>
      <h3>1. Connect an agent</h3>
      <p>Claude Code, from the folder the agent works in (other clients take the same address: see docs/mcp.md):</p>
      <CopyLine text={command} />
      <p class="small muted">MCP address: <code>{mcpUrl()}</code>. Its sessions show on this page as they work.</p>
      <h3>2. Write a task yourself</h3>
      {writable ? <p><a href="#/new-task" role="button">New task</a></p> : <p class="muted">This token may only read: change the token (in the header) to write.</p>}
      <h3>3. Load the demo</h3>
      <p>A few tasks in three domains, in every state. On the machine that runs this server, with its DATABASE_URL (running it twice adds nothing):</p>
      <CopyLine text="npm run seed" />
    </section>
  );
}

/** A command to paste, with a button that copies it and says so. */
function CopyLine({ text }: { text: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const copy = () => {
    // The clipboard is refused on plain http from another host: the command stays selectable, and the page says to copy it by hand.
    const clipboard = navigator.clipboard;
    if (!clipboard) return setCopied('no');
    clipboard.writeText(text).then(() => setCopied('yes'), () => setCopied('no'));
  };
  return (
    <div class="copy-line">
      <code>{text}</code>
      <button type="button" onClick={copy}>Copy</button>
      <span role="status" class="small muted">{copied === 'yes' ? 'Copied.' : copied === 'no' ? 'The browser would not copy it: select the line and copy it.' : ''}</span>
    </div>
  );
}
