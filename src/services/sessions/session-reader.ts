import type { EntityManager } from 'typeorm';
import { SESSION_CURSOR, decodeCursor, pageFrom, pageSize, type Page } from '../../domain/paging.js';
import type { SessionEntity } from '../../db/entities/index.js';
import { cleanSessionKey } from '../../domain/session-keys.js';
import { sessionIdOf } from '../../domain/session-ids.js';
import { DOMAINS_PER_SESSION_MAX, HELPERS_PER_SESSION_MAX } from '../../domain/session-limits.js';
import { appendTo } from '../kernel/grouping.js';
import { sessionColumns, sessionOf } from '../kernel/entity-rows.js';
import { distinct, num, placeholders, selectRows } from '../kernel/statements.js';
import { currentPlanIds } from './session-store.js';
import type { SessionSearch } from '../../domain/session-search.js';

/** Above every character a word can hold, in UTF-8's byte order (SQLite's, and PostgreSQL's under COLLATE "C"): a word's start W covers W .. W + this. */
const WORD_END = '\u{10FFFF}';

/** A condition on sessions "s" and the values of its placeholders, in order. */
interface Condition {
  sql: string;
  values: unknown[];
}

/**
 * A search as a condition on sessions "s": its id starts with the search,
 * or, for each word, the session's name has a word starting with it. Each
 * word is one range of session_name_words' primary key (word, sessionId),
 * read once per statement, so a search never reads names it cannot match.
 * The text depends only on whether there is an id prefix and how many words
 * (at most SESSION_SEARCH_WORDS_MAX): a bounded set of statements.
 */
function searchCondition(search: SessionSearch): Condition {
  // A search of neither (punctuation only) finds nothing, as no id or word holds it.
  const any = ['1 = 0'];
  const values: unknown[] = [];
  // idPrefix holds only [a-z0-9-]: none of LIKE's wildcards.
  if (search.idPrefix) {
    any.push('s."id" LIKE ?');
    values.push(`${search.idPrefix}%`);
  }
  if (search.words.length) {
    any.push(`(${search.words.map((word, index) => {
      values.push(word, word + WORD_END);
      return `s."id" IN (SELECT w${index}."sessionId" FROM "session_name_words" w${index} WHERE w${index}."word" >= ? AND w${index}."word" <= ?)`;
    }).join(' AND ')})`);
  }
  return { sql: `(${any.join(' OR ')})`, values };
}

const SESSIONS_BY_ID = (count: number) => `SELECT ${sessionColumns('s')} FROM "sessions" s WHERE s."id" IN (${placeholders(count)})`;

const SESSION_OF_KEY = 'SELECT k."sessionId" FROM "session_keys" k WHERE k."principal" = ? AND k."key" = ?';

/** The helpers of some parents, oldest first, at most `?` per parent (ranked per parent in SQL). */
const CHILDREN_OF = (count: number) => `SELECT ${sessionColumns('s')} FROM "sessions" s
  WHERE s."id" IN (SELECT ranked."id" FROM (
    SELECT c."id", ROW_NUMBER() OVER (PARTITION BY c."parentId" ORDER BY c."createdAt", c."id") AS "rn"
    FROM "sessions" c WHERE c."parentId" IN (${placeholders(count)})) ranked
  WHERE ranked."rn" <= ?)
  ORDER BY s."createdAt" ASC, s."id" ASC`;

/** Each session's domains, sorted, at most `?` per session (ranked per session in SQL). */
const DOMAINS_OF = (count: number) => `SELECT ranked."sessionId", ranked."domain" FROM (
    SELECT d."sessionId", d."domain", ROW_NUMBER() OVER (PARTITION BY d."sessionId" ORDER BY d."domain") AS "rn"
    FROM "session_domains" d WHERE d."sessionId" IN (${placeholders(count)})) ranked
  WHERE ranked."rn" <= ?
  ORDER BY ranked."sessionId", ranked."rn"`;

/** The newest top-level sessions, working ones (not finished) first: false sorts before true on both databases. */
const RECENT = `SELECT ${sessionColumns('s')} FROM "sessions" s
  WHERE s."parentId" IS NULL
  ORDER BY s."finishedAt" IS NOT NULL, s."createdAt" DESC, s."id" DESC LIMIT ?`;

/**
 * The domains each session named, sorted, at most DOMAINS_PER_SESSION_MAX
 * each (ranked per session in SQL, in the same order): one statement for any
 * number of sessions. Session.domains and a session's reminder read it.
 */
export async function domainsOfSessions(manager: EntityManager, sessionIds: readonly string[]): Promise<string[][]> {
  if (sessionIds.length === 0) return [];
  const ids = distinct(sessionIds);
  const rows = await selectRows(manager, DOMAINS_OF(ids.length), [...ids, DOMAINS_PER_SESSION_MAX]);
  const bySession = new Map<string, string[]>();
  for (const [sessionId, domain] of rows) appendTo(bySession, sessionId as string, domain as string);
  return sessionIds.map((sessionId) => bySession.get(sessionId) ?? []);
}

/**
 * Reads for sessions, shaped for batching: each method takes many keys and
 * answers in one statement (the GraphQL layer wraps them in per-request
 * DataLoaders).
 */
export class SessionReader {
  constructor(private readonly reader: () => EntityManager) {}

  /** Sessions by id, in the order asked; null where none has the id (an id no session can have is not looked up: sessionIdOf). */
  async sessionsByIds(ids: readonly string[]): Promise<(SessionEntity | null)[]> {
    const possible = distinct(ids.map(sessionIdOf).filter((id): id is string => id !== null));
    const rows = possible.length ? (await selectRows(this.reader(), SESSIONS_BY_ID(possible.length), possible)).map((row) => sessionOf(row)) : [];
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(sessionIdOf(id) ?? '') ?? null);
  }

  /**
   * The id of the session a chat key names for this principal (null with
   * auth off), or null when the key has named none yet: how a hook's
   * x-session-key finds the chat's session without starting one.
   * BAD_USER_INPUT for a key no chat can have (session-keys.ts).
   */
  async sessionIdForKey(principal: string | null, rawKey: string): Promise<string | null> {
    const key = cleanSessionKey(rawKey);
    const [row] = await selectRows(this.reader(), SESSION_OF_KEY, [principal ?? '', key]);
    return row ? (row[0] as string) : null;
  }

  /**
   * Each session's helpers (children), oldest first: at most
   * HELPERS_PER_SESSION_MAX each, ranked per parent in SQL, so rows a session
   * gained past its cap (none should) are never read.
   */
  async childrenOf(parentIds: readonly string[]): Promise<SessionEntity[][]> {
    if (parentIds.length === 0) return [];
    const ids = distinct(parentIds);
    const rows = (await selectRows(this.reader(), CHILDREN_OF(ids.length), [...ids, HELPERS_PER_SESSION_MAX])).map((row) => sessionOf(row));
    const byParent = new Map<string, SessionEntity[]>();
    for (const row of rows) appendTo(byParent, row.parentId!, row);
    return parentIds.map((parentId) => byParent.get(parentId) ?? []);
  }

  /** Each session's named domains, sorted: at most DOMAINS_PER_SESSION_MAX each, ranked per session in SQL. */
  async domainsOf(sessionIds: readonly string[]): Promise<string[][]> {
    if (sessionIds.length === 0) return [];
    return domainsOfSessions(this.reader(), sessionIds);
  }

  /** For each session's plan task id: that id while it is the current plan, else null (session-store.ts currentPlanIds). */
  async currentPlans(planTaskIds: readonly number[]): Promise<(number | null)[]> {
    return currentPlanIds(this.reader(), planTaskIds);
  }

  /** Top-level sessions, the ones still working (not finished) first, newest first within each; at most `limit`. */
  async recent(limit: number): Promise<SessionEntity[]> {
    return (await selectRows(this.reader(), RECENT, [limit])).map((row) => sessionOf(row));
  }

  /**
   * Every top-level session, newest first, keyset-paged by (createdAt, id):
   * `finished` keeps only finished (true) or working (false) ones, and
   * `idPrefix` only ids that start with it, and `search` (readSessionSearch)
   * those whose id starts with it or whose name has a word starting with
   * each of its words. Page 1,000 costs what page 1 costs.
   */
  async page(filter: { finished?: boolean | null; idPrefix?: string | null; search?: SessionSearch | null }, first: number | null | undefined, after: string | null | undefined): Promise<Page<SessionEntity>> {
    const size = pageSize(first);
    const key = decodeCursor(after, SESSION_CURSOR);
    const conditions = ['s."parentId" IS NULL'];
    const values: unknown[] = [];
    if (filter.finished === true) conditions.push('s."finishedAt" IS NOT NULL');
    if (filter.finished === false) conditions.push('s."finishedAt" IS NULL');
    // Ids are server-made ([\w-]); anything else in the prefix cannot match, and LIKE's own wildcards are escaped away by refusing them.
    if (filter.idPrefix) {
      conditions.push('s."id" LIKE ?');
      values.push(`${filter.idPrefix.replace(/[^\w-]/g, '').replace(/_/g, '')}%`);
    }
    if (filter.search) {
      const search = searchCondition(filter.search);
      conditions.push(search.sql);
      values.push(...search.values);
    }
    const where = conditions.join(' AND ');
    const manager = this.reader();
    const [[total]] = await selectRows(manager, `SELECT COUNT(*) FROM "sessions" s WHERE ${where}`, values);
    const totalCount = num(total);
    const bound = key ? ' AND (s."createdAt" < ? OR (s."createdAt" = ? AND s."id" < ?))' : '';
    const rows = (await selectRows(
      manager,
      `SELECT ${sessionColumns('s')} FROM "sessions" s WHERE ${where}${bound} ORDER BY s."createdAt" DESC, s."id" DESC LIMIT ?`,
      [...values, ...(key ? [key[0], key[0], key[1]] : []), size + 1],
    )).map((row) => sessionOf(row));
    return pageFrom(rows, size, (row) => [row.createdAt, row.id], totalCount);
  }
}
