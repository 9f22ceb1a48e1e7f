/**
 * The one line an operator reads when taskbase cannot start (serve, mcp,
 * migrate and the other commands): what is wrong and what to do, never a
 * stack or a password. A failure it does not recognise is said by its
 * message alone; LOG_LEVEL=debug adds the stack for a bug report.
 */
export function startupFailure(error: unknown, databaseUrl?: string): string {
  const native = nativeModuleMismatch(error);
  if (native) return native;
  const unreachable = databaseUrl && /^postgres(ql)?:\/\//.test(databaseUrl) ? postgresFailure(error, databaseUrl) : null;
  if (unreachable) return unreachable;
  return error instanceof Error ? error.message : String(error);
}

/** Node releases by the module ABI their native add-ons are built for (process.versions.modules). */
const NODE_OF_ABI: Record<string, string> = { '108': '18', '115': '20', '120': '21', '127': '22', '131': '23', '137': '24' };

/**
 * better-sqlite3 is compiled for the Node that ran `npm install`; started
 * with another (the MCP Inspector wants Node 22, for one), loading it fails
 * with an ABI number that tells the operator nothing.
 */
function nativeModuleMismatch(error: unknown): string | null {
  const message = error instanceof Error ? error.message : '';
  const built = /NODE_MODULE_VERSION (\d+)\. This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/.exec(message);
  if (!built) return null;
  const node = (abi: string) => (NODE_OF_ABI[abi] ? `Node ${NODE_OF_ABI[abi]}` : `the Node of NODE_MODULE_VERSION ${abi}`);
  return (
    `taskbase's SQLite module (better-sqlite3) was built for ${node(built[1])}, but this is Node ${process.versions.node}. ` +
    `Start taskbase with ${node(built[1])} (put it first on PATH, or give its full path in the client's config), ` +
    `or rebuild the module for this Node: npm rebuild better-sqlite3 (run in taskbase's folder).`
  );
}

/** PostgreSQL's answers at connect time, in an operator's words, naming the server but never the password. */
function postgresFailure(error: unknown, databaseUrl: string): string | null {
  const where = postgresWhere(databaseUrl);
  const code = (error as { code?: unknown })?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return `PostgreSQL at ${where} refused the connection: is it running and listening there? Check DATABASE_URL's host and port.`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `PostgreSQL's host in DATABASE_URL (${where}) does not resolve: check the name.`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `PostgreSQL at ${where} cannot be reached from here (${code}): check DATABASE_URL and the network between them.`;
    case '28P01':
    case '28000':
      return `PostgreSQL at ${where} refused the user or password in DATABASE_URL: check them.`;
    case '3D000':
      return `PostgreSQL at ${where} has no such database: create it (createdb) or fix DATABASE_URL's database name.`;
    default:
      return null;
  }
}

/** host:port/database of a postgres:// URL, without user or password. */
function postgresWhere(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
  } catch {
    return 'the address in DATABASE_URL';
  }
}
