import { createHash } from 'node:crypto';
import { DomainError } from '../../domain/errors.js';
import { IdempotencyKeyEntity } from '../../db/entities/index.js';
import type { UnitOfWork } from './unit-of-work.js';

export interface StoredResult {
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
export const IDEMPOTENCY_KEY_MAX = 200;

/**
 * Keys are the caller's own: two sessions (or a session and the dashboard)
 * may use the same key without seeing each other's results.
 */
function scopedKey(uow: UnitOfWork, key: string): string {
  const { sessionId } = uow.caller;
  // A digest keeps the stored key bounded and unambiguous whatever header was sent.
  const scope = sessionId ? createHash('sha256').update(sessionId).digest('hex').slice(0, 32) : '-';
  return `${scope}:${key}`;
}

/**
 * Retry safety for creating calls: the first call with a key records what it
 * created; a retry with the same key and input gets that back and records
 * nothing new; the same key with other input is refused.
 */
export async function findReplay(uow: UnitOfWork, operation: string, key: string | null | undefined, input: object): Promise<StoredResult | null> {
  if (!key) return null;
  if (key.length > IDEMPOTENCY_KEY_MAX) {
    throw new DomainError('BAD_USER_INPUT', `idempotencyKey is ${key.length} characters; the limit is ${IDEMPOTENCY_KEY_MAX}. A UUID is a good key.`);
  }
  const row = await uow.manager.findOneBy(IdempotencyKeyEntity, { operation, key: scopedKey(uow, key) });
  if (!row) return null;
  if (row.fingerprint !== fingerprint(input)) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `idempotencyKey "${key}" was already used for a different ${operation} call. Send a new key for new input, or resend the original input unchanged to get its result.`,
    );
  }
  return row.result;
}

export async function remember(uow: UnitOfWork, operation: string, key: string | null | undefined, input: object, result: StoredResult): Promise<void> {
  if (!key) return;
  await uow.manager.insert(IdempotencyKeyEntity, { operation, key: scopedKey(uow, key), fingerprint: fingerprint(input), result, createdAt: uow.now });
}

/**
 * The first call's result for a replay; when it is gone since (a deleted
 * task note), a refusal saying so, not a failure.
 */
export function replayed<T>(row: T | null, operation: string, key: string | null | undefined): T {
  if (row) return row;
  throw new DomainError(
    'NOT_FOUND',
    `idempotencyKey "${key}" was first used for a ${operation} whose result has since been deleted. Send a new key to do it again.`,
  );
}
