#!/usr/bin/env node
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { loadConfig } from './config.js';
import { sqlitePath as sqlitePathOf } from './db/database-url.js';
import { directWriteNotice, runningServer } from './db/sqlite-owner.js';
import type { Database } from './db/database.js';
import { DomainError, isDomainError, type ErrorCode } from './domain/errors.js';
import { environmentHelp } from './environment.js';
import { startupFailure } from './startup-failure.js';
import { defaultDatabaseNote } from './package-root.js';

// The ORM, the services and the schema load only in the commands that use them: a stop hook's
// `remind` through a running server starts in a fraction of the time.
const openDatabase = async (): Promise<Database> => {
  const { databaseUrl, sqliteSynchronous, postgresSession } = loadConfig();
  return (await import('./db/database.js')).Database.open(databaseUrl, { synchronous: sqliteSynchronous, postgresSession });
};
const servicesOf = async (db: Database) => (await import('./services/index.js')).createServices(db);
import { createLogger } from './logger.js';

const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** Operator and agent commands: serve, migrate, seed, schema, backup, restore, remind, turn, claude-hook, mcp. */
const program = new Command('taskbase')
  .description('A knowledge base of tasks and AI agents\' plans: GraphQL, MCP tools and a live dashboard over SQLite or PostgreSQL.')
  .version(version, '-V, --version', 'print the version')
  .helpCommand('help [command]', 'show the help of a command')
  .showHelpAfterError('(taskbase --help lists the commands; taskbase <command> --help shows one)')
  .addHelpText('after', `
Every command reads DATABASE_URL (default sqlite:data/taskbase.sqlite in a clone; installed, $XDG_DATA_HOME/taskbase/taskbase.sqlite, else ~/.local/share/taskbase/taskbase.sqlite); taskbase serve --help lists the whole environment.
Documentation: README.md; the MCP tools: docs/mcp.md.`);

program
  .command('serve')
  .description('serve the dashboard (/), GraphQL (/graphql, subscriptions on the same path) and MCP (/mcp) over HTTP until SIGINT/SIGTERM (what npm start runs)')
  .option('--port <port>', 'HTTP port, instead of PORT')
  .option('--host <address>', 'bind address, instead of HOST')
  .option('--database <url>', 'sqlite:<path> or postgres://user@host:port/db, instead of DATABASE_URL')
  .addHelpText('after', environmentHelp())
  .action(async (options: { port?: string; host?: string; database?: string }) => {
    await (await import('./serve.js')).serve(options);
  });

program
  .command('migrate')
  .description('apply pending migrations to DATABASE_URL')
  .action(async () => {
    const db = await openDatabase();
    await db.close();
    const applied = db.migrated.length;
    console.log(applied === 0 ? 'the database was already up to date' : `applied ${applied} migration${applied === 1 ? '' : 's'}; the database is up to date`);
  });

program
  .command('schema')
  .description('write the GraphQL schema, sorted, to schema.graphql (or --out)')
  .option('--out <file>', 'where to write it', 'schema.graphql')
  .action(async (options: { out: string }) => {
    const { createSchema, printSortedSchema } = await import('./graphql/schema.js');
    fs.writeFileSync(options.out, printSortedSchema(await createSchema()));
    console.log(`wrote ${options.out}`);
  });

program
  .command('seed')
  .description('load the demo knowledge base into DATABASE_URL (idempotent)')
  .action(async () => {
    const { seedDemo } = await import('../seeds/demo.js');
    const db = await openDatabase();
    try {
      const summary = await seedDemo(await servicesOf(db));
      console.log(summary);
    } finally {
      await db.close();
    }
  });

program
  .command('backup')
  .description('write a consistent copy of the SQLite database to <file> while the server keeps serving it (on PostgreSQL: runs pg_dump)')
  .argument('<file>', 'where the copy goes; must not exist yet')
  .addHelpText('after', `
SQLite: one snapshot of DATABASE_URL's file (VACUUM INTO), checked whole, then renamed into place; writers are not held up.
PostgreSQL: pg_dump --format=custom of DATABASE_URL (pg_restore puts it back). Restoring: docs/operations.md.`)
  .action(async (file: string) => {
    const { databaseUrl } = loadConfig();
    const { databaseKind, sqlitePath } = await import('./db/database-url.js');
    if (databaseKind(databaseUrl) === 'postgres') {
      await pgDump(databaseUrl, file);
      console.log(`backed up the PostgreSQL database to ${file} (pg_dump custom format; restore with pg_restore, docs/operations.md)`);
      return;
    }
    const size = (await import('./db/sqlite-files.js')).backupSqlite(sqlitePath(databaseUrl), file);
    console.log(`backed up ${sqlitePath(databaseUrl)} to ${file} (${(size / 1024 / 1024).toFixed(1)} MB, checked whole)`);
  });

program
  .command('restore')
  .description('put a backup made by `taskbase backup` in place of the SQLite database; no server may be running on it')
  .argument('<backup>', 'the backup file')
  .action(async (backup: string) => {
    const { databaseUrl } = loadConfig();
    const { databaseKind, sqlitePath } = await import('./db/database-url.js');
    if (databaseKind(databaseUrl) === 'postgres') {
      throw new Error(`on PostgreSQL, restore with pg_restore: pg_restore --clean --if-exists --dbname '<DATABASE_URL>' ${backup} (docs/operations.md)`);
    }
    const server = runningServer(databaseUrl);
    if (server) throw new Error(`a taskbase server (pid ${server.pid}, ${server.url}) is serving ${sqlitePath(databaseUrl)}; stop it, then restore`);
    (await import('./db/sqlite-files.js')).restoreSqlite(backup, sqlitePath(databaseUrl));
    console.log(`restored ${sqlitePath(databaseUrl)} from ${backup}; start the server again`);
  });

/** Runs pg_dump on the database; an operator without it is told what to install. */
async function pgDump(databaseUrl: string, file: string): Promise<void> {
  if (fs.existsSync(file)) throw new Error(`${file} exists already; name a new file for the backup, or remove that one first`);
  const { spawn } = await import('node:child_process');
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn('pg_dump', ['--format=custom', '--file', file, databaseUrl], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'ENOENT'
      ? new Error('pg_dump is not installed here; install PostgreSQL\'s client tools (Debian: apt-get install postgresql-client) or run pg_dump where they are')
      : error));
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`pg_dump failed (exit ${code}); what it said is above`);
}

/** Which session a hook's command acts on: --session (its id) or --session-key (the chat's key, as `taskbase mcp --session-key` took it). */
interface SessionChoice {
  session?: string;
  sessionKey?: string;
  url?: string;
}

function chosenSession(options: SessionChoice): { sessionId: string } | { sessionKey: string } {
  if ((options.session === undefined) === (options.sessionKey === undefined)) {
    throw new Error("give the session as --session <id> or as --session-key <key> (the chat's key), one of the two");
  }
  return options.session !== undefined ? { sessionId: options.session } : { sessionKey: options.sessionKey! };
}

/**
 * Runs one session mutation for a hook: through the server given with --url,
 * else the server running on DATABASE_URL's SQLite file (a SQLite file has
 * one writer process), else on the database itself. A session that is not
 * found is said in the operator's words.
 */
async function onSession<T>(
  options: SessionChoice,
  overHttp: { mutation: string; field: string },
  fromDatabase: (services: Awaited<ReturnType<typeof servicesOf>>, sessionId: string) => Promise<T>,
): Promise<T> {
  const choice = chosenSession(options);
  const named = 'sessionId' in choice ? `id "${choice.sessionId}"` : `key "${choice.sessionKey}"`;
  const url = options.url ?? runningServer(loadConfig().databaseUrl)?.url;
  try {
    if (url) return await graphqlMutation<T>(url, choice, overHttp);
    const db = await openDatabase();
    try {
      const services = await servicesOf(db);
      const sessionId = 'sessionId' in choice ? choice.sessionId : await services.sessionReader.sessionIdForKey(null, choice.sessionKey);
      if (sessionId === null) throw new DomainError('NO_SESSION', 'no session');
      return await fromDatabase(services, sessionId);
    } finally {
      await db.close();
    }
  } catch (error) {
    if (isDomainError(error) && error.code === 'NO_SESSION') {
      throw new NoSuchSession(`no started session has ${named} (a session starts at an MCP client's first tool call: taskbase mcp, or /mcp)`);
    }
    throw error;
  }
}

/** The session a hook named is not started (yet): an error for `remind` and `turn start`, nothing to do for claude-hook. */
class NoSuchSession extends Error {}

async function graphqlMutation<T>(url: string, choice: { sessionId: string } | { sessionKey: string }, { mutation, field }: { mutation: string; field: string }): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if ('sessionId' in choice) headers['x-session-id'] = choice.sessionId;
  else headers['x-session-key'] = choice.sessionKey;
  const token = process.env.TASKBASE_TOKEN;
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query: mutation }) }).catch((error: Error) => {
    throw new Error(`could not reach the taskbase server at ${url} (${(error.cause as Error | undefined)?.message ?? error.message}); is it running?`);
  });
  const body = (await response.json()) as { data?: Record<string, T>; errors?: { message: string; extensions?: { code?: ErrorCode } }[] };
  const [error] = body.errors ?? [];
  if (error) throw new DomainError(error.extensions?.code ?? 'BAD_USER_INPUT', error.message);
  return body.data![field]!;
}

const SESSION_OPTION = ['--session <id>', 'the agent session (as sent in x-session-id)'] as const;
const SESSION_KEY_OPTION = ['--session-key <key>', "or the chat's key (as given to taskbase mcp --session-key, or sent in x-session-key)"] as const;
const URL_OPTION = ['--url <graphql-url>', "ask this server (e.g. http://127.0.0.1:4000/graphql); without it, the server running on DATABASE_URL's SQLite file, else the database itself"] as const;

/** Ends a session's turn: its reminder when one is due, else null (remind, and claude-hook's Stop). */
function endTurn(options: SessionChoice): Promise<PrintedReminder | null> {
  return onSession<PrintedReminder | null>(
    options,
    { mutation: 'mutation { endTurn { text domains tasks { id title domain } } }', field: 'endTurn' },
    async (services, sessionId) => {
      const found = await services.reminders.endTurn({ sessionId });
      return found && { text: found.text, tasks: found.tasks.map((t) => ({ id: String(t.id), title: t.title, domain: t.domain })), domains: found.domains };
    },
  );
}

/** Starts a session's next turn (turn start, and claude-hook's UserPromptSubmit). */
function startTurn(options: SessionChoice): Promise<{ turn: number }> {
  return onSession<{ turn: number }>(
    options,
    { mutation: 'mutation { startTurn { turn } }', field: 'startTurn' },
    async (services, sessionId) => services.sessions.startTurn({ sessionId }),
  );
}

program
  .command('remind')
  .description("end a session's turn: print its reminder when one is due, else nothing (for stop hooks and cron)")
  .option(...SESSION_OPTION)
  .option(...SESSION_KEY_OPTION)
  .option('--json', 'print the reminder as JSON ({"text", "tasks", "domains"}), or null')
  .option(...URL_OPTION)
  .action(async (options: SessionChoice & { json?: boolean }) => {
    const reminder = await endTurn(options);
    if (options.json) console.log(JSON.stringify(reminder));
    else if (reminder) console.log(reminder.text);
  });

interface PrintedReminder {
  text: string;
  tasks: { id: string; title: string; domain: string | null }[];
  domains: string[];
}

program
  .command('turn')
  .description("a session's turns, for hooks: taskbase turn start when the user sends a message")
  .command('start')
  .description("start the session's next turn: its standing plan clears from the chat's to-do panel until the agent updates it (for a UserPromptSubmit hook, so it prints nothing; --json prints {\"turn\"})")
  .option(...SESSION_OPTION)
  .option(...SESSION_KEY_OPTION)
  .option('--json', 'print the turn started as JSON: {"turn": <number>}')
  .option(...URL_OPTION)
  .action(async (options: SessionChoice & { json?: boolean }) => {
    const turn = await startTurn(options);
    if (options.json) console.log(JSON.stringify({ turn: turn.turn }));
  });

program
  .command('claude-hook')
  .description("Claude Code's hook for a chat that keeps its list: reads the hook's JSON on stdin and uses its session_id as the chat's key (SessionStart, UserPromptSubmit, Stop)")
  .option(...URL_OPTION)
  .addHelpText('after', `
What it does for each hook_event_name (TASKBASE_TOKEN is the bearer token, as for remind):
  SessionStart      prints one line telling the agent its key, to pass as session_key in its tool calls (starts nothing)
  UserPromptSubmit  starts the chat's next turn, as taskbase turn start; prints nothing (no session yet: nothing)
  Stop              ends the turn, as taskbase remind: a reminder due is printed on stderr with exit status 2, so
                    Claude Code hands it to the agent; else exit 0, silently
A hook must never block the chat: any other event, input that is not the hook's JSON, a server that cannot be
reached or a refusal is one line on stderr and exit status 0.
The lines for .claude/settings.json: docs/mcp.md, "Claude Code".`)
  .action(async (options: { url?: string }) => {
    try {
      process.exitCode = await claudeHook(await readStdin(), options.url);
    } catch (error) {
      process.stderr.write(`taskbase claude-hook: ${(error as Error).message}\n`);
      process.exitCode = 0;
    }
  });

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** One Claude Code hook event, answered as Claude Code reads a hook: stdout for SessionStart's context, stderr with 2 for Stop. */
async function claudeHook(input: string, url: string | undefined): Promise<number> {
  let event: { hook_event_name?: unknown; session_id?: unknown };
  try {
    event = JSON.parse(input) as typeof event;
  } catch {
    throw new Error("stdin is not JSON; Claude Code sends each hook its event as JSON (hook_event_name, session_id)");
  }
  const name = event?.hook_event_name;
  if (typeof event?.session_id !== 'string') throw new Error(`the hook's JSON has no session_id (hook_event_name ${JSON.stringify(name ?? null)})`);
  const sessionKey = (await import('./domain/session-keys.js')).cleanSessionKey(event.session_id);
  const chat = { sessionKey, url };
  switch (name) {
    case 'SessionStart':
      console.log(`taskbase: this chat's session key is "${sessionKey}". Pass session_key "${sessionKey}" in every taskbase tool call, so the chat's list continues across reconnects.`);
      return 0;
    case 'UserPromptSubmit':
      await startTurn(chat).catch(nothingWithoutSession);
      return 0;
    case 'Stop': {
      const reminder = await endTurn(chat).catch(nothingWithoutSession);
      if (!reminder) return 0;
      process.stderr.write(`${reminder.text}\n`);
      return 2;
    }
    default:
      throw new Error(`${JSON.stringify(name ?? null)} is not an event it takes; run it for SessionStart, UserPromptSubmit and Stop`);
  }
}

/** A chat whose agent has made no taskbase call yet has no session: its hook has nothing to do. */
function nothingWithoutSession(error: unknown): null {
  if (error instanceof NoSuchSession) return null;
  throw error;
}

/** The SQLite file DATABASE_URL names, as the operator wrote it (relative to here when under here). */
function shownFile(databaseUrl: string): string {
  const file = path.resolve(sqlitePathOf(databaseUrl));
  return path.relative(process.cwd(), file).startsWith('..') ? file : path.relative(process.cwd(), file);
}

/**
 * A server with auth on answers 401 to a relay without TASKBASE_TOKEN: said
 * once at start, in the operator's words, instead of on every tool call.
 */
async function refuseWithoutToken(graphqlUrl: string, databaseUrl: string): Promise<void> {
  const response = await fetch(graphqlUrl, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }),
  }).catch(() => null);
  if (response?.status !== 401) return;
  throw new Error(
    `the taskbase server at ${graphqlUrl} running on ${shownFile(databaseUrl)} has auth on, and taskbase mcp relays its writes through it: ` +
      'set TASKBASE_TOKEN to one of its write tokens, or pass --direct to write the file itself',
  );
}

program
  .command('mcp')
  .description('serve the MCP tools over stdio (nothing but MCP on stdout; logs go to stderr)')
  .option('--tools <sets>', 'comma-separated: whole-list, step-ops, plan-and-finish, knowledge-base (default whole-list,knowledge-base)')
  .option('--session <id>', 'join this started session instead of starting one')
  .option('--session-key <key>', "this chat's stable key (e.g. the client's session id): the session it named before, with its plan, else one started under it")
  .option('--parent <id>', "start a helper's session under this one")
  .option('--url <graphql-url>', "use a running server (e.g. http://127.0.0.1:4000/graphql), with TASKBASE_TOKEN as its bearer token, instead of opening DATABASE_URL; without it, the server running on DATABASE_URL's SQLite file, if any")
  .option('--direct', "write DATABASE_URL itself even when a server runs on its SQLite file (by default the writes go through that server, which keeps its own writes fast)")
  .option('--one-active', 'turn the one-active rule on for the session it starts')
  .option('--structured', 'declare output schemas and answer structuredContent beside the text (off: some clients then show the model only the JSON)')
  .action(async (options: { tools?: string; session?: string; sessionKey?: string; parent?: string; url?: string; direct?: boolean; oneActive?: boolean; structured?: boolean }) => {
    // Loaded here, not at the top: the other commands (a stop hook's remind) should not pay for the MCP SDK on every run.
    const [{ relayStdio, serveStdio }, { ToolRefusal }, { parseToolSets }] = await Promise.all([
      import('./mcp/transports/stdio.js'), import('./mcp/common/tool-result.js'), import('./mcp/tool-sets.js'),
    ]);
    const config = loadConfig();
    const logger = createLogger(config.logLevel, 'stderr');
    let selection;
    try {
      selection = parseToolSets(options.tools);
    } catch (error) {
      throw new Error(error instanceof ToolRefusal ? error.message : String(error));
    }
    if (options.session !== undefined && options.sessionKey !== undefined) throw new Error('give --session (a session\'s id) or --session-key (your chat\'s key), not both');
    const sessionKey = options.sessionKey === undefined ? null : (await import('./domain/session-keys.js')).cleanSessionKey(options.sessionKey);
    const stdio = {
      selection,
      tools: options.tools ?? null,
      structured: options.structured ?? false,
      session: { sessionId: options.session ?? null, sessionKey, parentId: options.parent ?? null, oneActive: options.oneActive ?? false },
    };
    if (options.url && options.direct) throw new Error('give --url (relay to that server) or --direct (write DATABASE_URL itself), not both');
    // A SQLite file has one writer at a time: a stdio process writing beside the server starves the server's own writes
    // (a tenth of its writes a second, with two such processes), so by default the writes go through the server holding the file.
    const owner = options.url || options.direct ? null : runningServer(config.databaseUrl);
    const relayUrl = options.url ?? owner?.url;
    const token = process.env.TASKBASE_TOKEN;
    if (owner && !token) await refuseWithoutToken(owner.url, config.databaseUrl);
    // Which mode this is, on stderr, whatever LOG_LEVEL says: whoever reads the client's log learns where the changes go.
    const mode = owner
      ? `relaying to the taskbase server at ${owner.url} running on ${shownFile(config.databaseUrl)}; it records these changes (--direct writes the file itself)`
      : relayUrl ? `relaying to the taskbase server at ${relayUrl}; it records these changes` : directWriteNotice(config.databaseUrl);
    process.stderr.write(`taskbase mcp: ${mode}${defaultDatabaseNote(process.env)}\n`);
    if (relayUrl) {
      await relayStdio(relayUrl, token, logger, stdio);
      return;
    }
    const db = await openDatabase();
    try {
      await serveStdio(await servicesOf(db), logger, stdio);
    } finally {
      await db.close();
    }
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // One line for the operator, whatever failed: a refusal in its own words, the rest as startupFailure words it (a wrong Node, an unreachable PostgreSQL).
  console.error(`taskbase: ${isDomainError(error) ? error.message : startupFailure(error, process.env.DATABASE_URL)}`);
  process.exitCode = 1;
}
