import { createHash } from 'node:crypto';
import { DomainError } from '../../domain/errors.js';
import { checkCharacters } from '../../domain/text-input.js';
import { IdempotencyKeyEntity } from '../../db/entities/index.js';
import { runStatement, selectRows } from './statements.js';
import type { UnitOfWork } from './unit-of-work.js';

interface StoredResult {
  id: string;
  itemIds?: string[];
}

/** JSON with keys sorted at every level, so the same input always hashes the same. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined && v !== null).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function fingerprint(input: object): string {
  const { idempotencyKey: _key, ...rest } = input as Record<string, unknown>;
  return createHash('sha256').update(stableJson(rest)).digest('hex');
}

/** Longest idempotency key taken (a UUID is 36). */
const IDEMPOTENCY_KEY_MAX = 200;

/** A short digest: the stored key stays bounded and unambiguous whatever header or token was sent. */
function scope(value: string | null | undefined): string {
  return value ? createHash('sha256').update(value).digest('hex').slice(0, 32) : '-';
}

/**
 * Keys are the caller's own: two sessions (or a session and the dashboard),
 * and two bearer tokens, may use the same key without seeing each other's results.
 */
function scopedKey(uow: UnitOfWork, key: string): string {
  const { sessionId, principal } = uow.caller;
  return principal ? `${scope(principal)}:${scope(sessionId)}:${key}` : `${scope(sessionId)}:${key}`;
}

/** What a claimed key holds until its call records the result (never seen outside the claiming transaction). */
const CLAIMED: StoredResult = { id: '' };

/**
 * Retry safety for creating calls: the first call with a key records what it
 * created; a retry with the same key and input gets that back and records
 * nothing new; the same key with other input is refused.
 *
 * The key is claimed first, before any work: its row is inserted (or found
 * taken) as the transaction's first write. On PostgreSQL a concurrent retry's
 * insert waits on the unique key until the first call commits, then finds the
 * key taken and answers the first call's result; if the first call is refused
 * (rolled back), the retry claims the key and does the work itself. SQLite's
 * write lock serialises the same. Null means "claimed: do the work, then
 * remember".
 */
async function findReplay(uow: UnitOfWork, operation: string, key: string | null | undefined, input: object): Promise<StoredResult | null> {
  if (!key) return null;
  if (key.length > IDEMPOTENCY_KEY_MAX) {
    throw new DomainError('BAD_USER_INPUT', `idempotencyKey is ${key.length} characters; the limit is ${IDEMPOTENCY_KEY_MAX}. A UUID is a good key.`, { field: 'idempotencyKey', length: key.length, limit: IDEMPOTENCY_KEY_MAX });
  }
  checkCharacters(key, 'idempotencyKey');
  const scoped = scopedKey(uow, key);
  // createdAt is stamped by remember: reading the clock here, before the call's row locks, could put it out of order.
  const claimed = await selectRows(
    uow.manager,
    `INSERT INTO "idempotency_keys" ("operation", "key", "fingerprint", "result", "createdAt") VALUES (?, ?, ?, ?, '')
     ON CONFLICT DO NOTHING RETURNING "key"`,
    [operation, scoped, fingerprint(input), JSON.stringify(CLAIMED)],
  );
  if (claimed.length === 1) return null;
  const row = await uow.manager.findOneByOrFail(IdempotencyKeyEntity, { operation, key: scoped });
  if (row.fingerprint !== fingerprint(input)) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `idempotencyKey "${key}" was already used for a different ${operation} call. Send a new key for new input, or resend the original input unchanged to get its result.`,
      { field: 'idempotencyKey', operation },
    );
  }
  return row.result;
}

/** Records the result of the call that claimed the key (findReplay answered null). */
async function remember(uow: UnitOfWork, operation: string, key: string | null | undefined, _input: object, result: StoredResult): Promise<void> {
  if (!key) return;
  await runStatement(uow.manager, `UPDATE "idempotency_keys" SET "result" = ?, "createdAt" = ? WHERE "operation" = ? AND "key" = ?`,
    [JSON.stringify(result), uow.now, operation, scopedKey(uow, key)]);
}

/** Lets go of a key the call claimed but made nothing with. */
async function forget(uow: UnitOfWork, operation: string, key: string | null | undefined): Promise<void> {
  if (!key) return;
  await runStatement(uow.manager, `DELETE FROM "idempotency_keys" WHERE "operation" = ? AND "key" = ?`, [operation, scopedKey(uow, key)]);
}

/**
 * The first call's result for a replay; when it is gone since (a deleted
 * task note), a refusal saying so, not a failure.
 */
function replayed<T>(row: T | null, operation: string, key: string | null | undefined): T {
  if (row) return row;
  throw new DomainError(
    'NOT_FOUND',
    `idempotencyKey "${key}" was first used for a ${operation} whose result has since been deleted. Send a new key to do it again.`,
    { field: 'idempotencyKey', operation },
  );
}

/**
 * What a creating call made: its answer, and what a retry needs to answer the
 * same. Null `stored` when it made nothing (claimNext with nothing ready): the
 * key is let go, so a retry does the work afresh instead of replaying "nothing".
 */
interface Creation<T> {
  result: T;
  stored: StoredResult | null;
}

/**
 * Runs a creating mutation at most once per idempotency key (the one wrapper
 * for createTask, addItems, addComment, addTaskNote, createNote and claimNext): without a
 * key, `create` runs; with a new key, the key is claimed, `create` runs and
 * its result is remembered; with a key already used for the same input,
 * `replay` reloads the first result and nothing new is recorded (NOT_FOUND
 * when it has since been deleted); with other input, BAD_USER_INPUT.
 */
export async function createOnce<T>(
  uow: UnitOfWork,
  operation: string,
  input: object & { idempotencyKey?: string | null },
  replay: (stored: StoredResult) => Promise<T | null>,
  create: () => Promise<Creation<T>>,
): Promise<T> {
  const key = input.idempotencyKey;
  const stored = await findReplay(uow, operation, key, input);
  if (stored) return replayed(await replay(stored), operation, key);
  const { result, stored: toStore } = await create();
  if (toStore) await remember(uow, operation, key, input, toStore);
  else await forget(uow, operation, key);
  return result;
}
