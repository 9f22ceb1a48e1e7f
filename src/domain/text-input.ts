import { DomainError } from './errors.js';

/**
 * U+0000 in text is refused wherever text comes in: PostgreSQL cannot store
 * it in a text column (SQLite can), so accepting it would make the same call
 * succeed on one database and fail on the other.
 */
export function checkNoNulCharacter(text: string, field: string): void {
  if (text.includes('\u0000')) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `${field} contains a NUL character (U+0000), which no text may hold. Remove the NUL character and send it again.`,
    );
  }
}
