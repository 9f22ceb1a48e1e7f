/**
 * The environment `taskbase serve` reads, as `taskbase serve --help` prints it
 * and docs/configuration.md's table lists it (a test holds the two to the same
 * names and defaults). config.ts parses each one.
 */
interface EnvironmentVariable {
  name: string;
  /** As docs/configuration.md shows it; "unset" when it has none. */
  fallback: string;
  meaning: string;
}

export const ENVIRONMENT: readonly EnvironmentVariable[] = [
  { name: 'PORT', fallback: '4000', meaning: 'HTTP port (0 picks a free one)' },
  { name: 'HOST', fallback: '127.0.0.1', meaning: 'bind address' },
  { name: 'DATABASE_URL', fallback: 'sqlite:data/taskbase.sqlite', meaning: 'sqlite:<path>, or postgres://user@host:port/db; the default is for a clone: installed (npm, npx), $XDG_DATA_HOME/taskbase/taskbase.sqlite, else ~/.local/share/taskbase/taskbase.sqlite' },
  { name: 'TASKBASE_KEEP_READS', fallback: 'on', meaning: 'on keeps answers and hot reads until anything commits (one statement checks first); off reads everything again every time' },
  { name: 'TASKBASE_SQLITE_SYNCHRONOUS', fallback: 'normal', meaning: 'SQLite only: normal, or full to sync every commit to disk' },
  { name: 'TASKBASE_SQLITE_WAL_LIMIT_MB', fallback: '64', meaning: 'SQLite only: MiB the WAL may grow to under writes that never pause before they are held for a moment to start it over' },
  { name: 'TASKBASE_TOKENS', fallback: 'unset', meaning: 'comma-separated bearer tokens (auth off when unset or empty; one that names no token is refused); secret:read may only read' },
  { name: 'TASKBASE_BODY_LIMIT', fallback: '1048576', meaning: 'largest request body in bytes' },
  { name: 'LOG_LEVEL', fallback: 'info', meaning: 'fatal, error, warn, info, debug, trace or silent' },
  { name: 'TASKBASE_HEADERS_TIMEOUT_MS', fallback: '10000', meaning: 'the request line and headers must arrive within this' },
  { name: 'TASKBASE_BODY_TIMEOUT_MS', fallback: '30000', meaning: 'the whole request must arrive within this' },
  { name: 'TASKBASE_IDLE_TIMEOUT_MS', fallback: '30000', meaning: 'a connection idle this long is closed' },
  { name: 'TASKBASE_KEEP_ALIVE_TIMEOUT_MS', fallback: '5000', meaning: 'an idle keep-alive connection is closed after this' },
  { name: 'TASKBASE_KEEP_ALIVE_MAX_REQUESTS', fallback: '1000', meaning: 'requests on one connection before Connection: close' },
  { name: 'TASKBASE_MAX_CONNECTIONS_PER_CLIENT', fallback: '128', meaning: 'open connections one client address may hold' },
  { name: 'TASKBASE_MAX_CONNECTIONS', fallback: '4096', meaning: 'open connections in all' },
  { name: 'TASKBASE_MAX_REQUESTS_PER_TOKEN', fallback: '256', meaning: 'requests one bearer token may have in progress' },
  { name: 'TASKBASE_ALLOWED_HOSTS', fallback: 'unset', meaning: 'Host names answered besides local ones, comma-separated (* for any)' },
  { name: 'TASKBASE_ALLOWED_ORIGINS', fallback: 'unset', meaning: "web page origins answered besides the dashboard's own, comma-separated (* for any)" },
  { name: 'TASKBASE_MCP_MAX_SESSIONS', fallback: '2000', meaning: 'open MCP sessions over HTTP in all; at the cap the least recently used one in no call is closed for a new one' },
  { name: 'TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN', fallback: '100', meaning: 'open MCP sessions over HTTP one token (with auth off, one client: every loopback address is one) may hold; at the cap its least recently used one in no call is closed for a new one' },
  { name: 'TASKBASE_MCP_IDLE_MINUTES', fallback: '10', meaning: 'an MCP session over HTTP idle this long is closed' },
  { name: 'TASKBASE_WS_MAX_SOCKETS_PER_CLIENT', fallback: '64', meaning: 'open WebSocket sockets one client address may hold' },
  { name: 'TASKBASE_WS_MAX_SOCKETS_PER_TOKEN', fallback: '64', meaning: 'open WebSocket sockets one bearer token may hold' },
  { name: 'TASKBASE_WS_MAX_SOCKETS', fallback: '1024', meaning: 'open WebSocket sockets in all' },
  { name: 'TASKBASE_WS_MAX_SUBSCRIPTIONS_PER_SOCKET', fallback: '32', meaning: 'subscriptions one socket may run at once' },
  { name: 'TASKBASE_WS_MAX_SUBSCRIPTIONS', fallback: '4096', meaning: 'subscriptions the whole server runs at once' },
  { name: 'TASKBASE_WS_FANOUT_EXECUTIONS_PER_TOKEN', fallback: '1', meaning: "subscription executions one token's changes run at once (subscribers sharing a document share one)" },
  { name: 'TASKBASE_WS_FANOUT_EXECUTIONS', fallback: '4', meaning: 'subscription executions the whole server runs at once' },
  { name: 'TASKBASE_WS_FANOUT_BYTES_PER_TOKEN', fallback: '33554432', meaning: "bytes of subscription events one token may have unwritten to its sockets" },
  { name: 'TASKBASE_WS_FANOUT_BYTES', fallback: '134217728', meaning: 'bytes of subscription events the whole server may have unwritten' },
  { name: 'TASKBASE_WS_FANOUT_WAIT_MS', fallback: '10000', meaning: 'how long a change may wait for its turn before its subscriptions get TOO_LARGE and end' },
  { name: 'TASKBASE_PG_IDLE_IN_TRANSACTION_MS', fallback: '5000', meaning: 'PostgreSQL: a session idle inside a transaction this long is ended and its transaction rolled back' },
  { name: 'TASKBASE_PG_LOCK_TIMEOUT_MS', fallback: '6000', meaning: 'PostgreSQL: a statement waiting this long for a row lock gives up (UNAVAILABLE)' },
  { name: 'TASKBASE_PG_STATEMENT_TIMEOUT_MS', fallback: '30000', meaning: 'PostgreSQL: a statement running this long is cancelled (UNAVAILABLE)' },
  { name: 'TASKBASE_PG_KEEPALIVE_S', fallback: '5', meaning: 'PostgreSQL: idle seconds before TCP keepalive probes a connection (both ends, 3 probes)' },
  { name: 'TASKBASE_CHANGE_LOG_DAYS', fallback: '7', meaning: 'days a change stays in the change log' },
  { name: 'TASKBASE_CHANGE_LOG_ROWS', fallback: '100000', meaning: 'changes the change log keeps at most' },
  { name: 'TASKBASE_WEBHOOK_ALLOWED_HOSTS', fallback: 'unset', meaning: 'hosts or addresses webhooks may reach although loopback, private or link-local, comma-separated (e.g. 127.0.0.1)' },
  { name: 'TASKBASE_WEBHOOK_BACKOFF_MS', fallback: '1000', meaning: 'wait after a failed webhook delivery; doubles after each further failure (at most an hour)' },
  { name: 'TASKBASE_WEBHOOK_MAX_ATTEMPTS', fallback: '8', meaning: 'attempts of one delivery before its webhook is marked inactive' },
  { name: 'TASKBASE_WEBHOOK_TIMEOUT_MS', fallback: '10000', meaning: 'how long one webhook delivery attempt may take' },
  { name: 'TASKBASE_HEAP_GROWTH_PERCENT', fallback: '50', meaning: "percent the JavaScript heap may grow past a full collection's live data (0 leaves it to V8)" },
];

/** The "Environment:" section of a command's help. */
export function environmentHelp(): string {
  const width = Math.max(...ENVIRONMENT.map((variable) => variable.name.length));
  const rows = ENVIRONMENT.map(({ name, fallback, meaning }) => `  ${name.padEnd(width)}  ${meaning}${fallback === 'unset' ? '' : ` (default: ${fallback})`}`);
  return `\nEnvironment (each checked at start; a bad value stops it with one line naming the variable):\n${rows.join('\n')}\n`;
}
