import { createHash } from 'node:crypto';
import { DomainError } from '../domain/errors.js';
import { IdempotencyKeyEntity } from '../db/entities/index.js';
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

/**
 * Retry safety for creating calls: the first call with a key records what it
 * created; a retry with the same key and input gets that back and records
 * nothing new; the same key with other input is refused.
 */
export async function findReplay(uow: UnitOfWork, operation: string, key: string | null | undefined, input: object): Promise<StoredResult | null> {
  if (!key) return null;
  const row = await uow.manager.findOneBy(IdempotencyKeyEntity, { operation, key });
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
  await uow.manager.insert(IdempotencyKeyEntity, { operation, key, fingerprint: fingerprint(input), result, createdAt: uow.now });
}
