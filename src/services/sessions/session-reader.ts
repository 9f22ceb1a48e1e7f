import { Brackets, type EntityManager } from 'typeorm';
import { SESSION_CURSOR, decodeCursor, pageFrom, pageSize, type Page } from '../../domain/paging.js';
import { SessionDomainEntity, SessionEntity, SessionKeyEntity } from '../../db/entities/index.js';
import { cleanSessionKey } from '../../domain/session-keys.js';
import { sessionIdOf } from '../../domain/session-ids.js';
import { DOMAINS_PER_SESSION_MAX, HELPERS_PER_SESSION_MAX } from '../../domain/session-limits.js';
import { appendTo } from '../kernel/grouping.js';
import { plainRows } from '../kernel/plain-rows.js';
import { currentPlanIds } from './session-store.js';
import type { SessionSearch } from '../../domain/session-search.js';

/** Above every character a word can hold, in UTF-8's byte order (SQLite's, and PostgreSQL's under COLLATE "C"): a word's start W covers W .. W + this. */
const WORD_END = '\u{10FFFF}';

/**
 * A search as a condition on sessions "s": its id starts with the search,
 * or, for each word, the session's name has a word starting with it. Each
 * word is one range of session_name_words' primary key (word, sessionId),
 * read once per statement, so a search never reads names it cannot match.
 */
function searchCondition(search: SessionSearch): Brackets {
  return new Brackets((where) => {
    // A search of neither (punctuation only) finds nothing, as no id or word holds it.
    where.where('1 = 0');
    // idPrefix holds only [a-z0-9-]: none of LIKE's wildcards.
    if (search.idPrefix) where.orWhere('s."id" LIKE :searchId', { searchId: `${search.idPrefix}%` });
    if (search.words.length === 0) return;
    where.orWhere(new Brackets((all) => {
      search.words.forEach((word, index) => {
        all.andWhere(
          `s."id" IN (SELECT w${index}."sessionId" FROM "session_name_words" w${index} WHERE w${index}."word" >= :from${index} AND w${index}."word" <= :to${index})`,
          { [`from${index}`]: word, [`to${index}`]: word + WORD_END },
        );
      });
    }));
  });
}

/**
 * The domains each session named, sorted, at most DOMAINS_PER_SESSION_MAX
 * each (ranked per session in SQL, in the same order): one statement for any
 * number of sessions. Session.domains and a session's reminder read it.
 */
export async function domainsOfSessions(manager: EntityManager, sessionIds: readonly string[]): Promise<string[][]> {
  const rows: { sessionId: string; domain: string }[] = await manager
    .createQueryBuilder()
    .select('ranked."sessionId"', 'sessionId')
    .addSelect('ranked."domain"', 'domain')
    .from((ranks) => ranks
      .select('d."sessionId"', 'sessionId')
      .addSelect('d."domain"', 'domain')
      .addSelect('ROW_NUMBER() OVER (PARTITION BY d."sessionId" ORDER BY d."domain")', 'rn')
      .from(SessionDomainEntity, 'd')
      .where('d."sessionId" IN (:...sessionIds)', { sessionIds: [...new Set(sessionIds)] }), 'ranked')
    .where('ranked."rn" <= :most', { most: DOMAINS_PER_SESSION_MAX })
    .orderBy('ranked."sessionId"')
    .addOrderBy('ranked."rn"')
    .getRawMany();
  const bySession = new Map<string, string[]>();
  for (const row of rows) appendTo(bySession, row.sessionId, row.domain);
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
    const possible = [...new Set(ids.map(sessionIdOf).filter((id): id is string => id !== null))];
    const manager = this.reader();
    const rows = possible.length ? await plainRows(manager, manager.createQueryBuilder(SessionEntity, 's').where('s."id" IN (:...possible)', { possible })) : [];
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
    const row = await this.reader().findOneBy(SessionKeyEntity, { principal: principal ?? '', key: cleanSessionKey(rawKey) });
    return row?.sessionId ?? null;
  }

  /**
   * Each session's helpers (children), oldest first: at most
   * HELPERS_PER_SESSION_MAX each, ranked per parent in SQL, so rows a session
   * gained past its cap (none should) are never read.
   */
  async childrenOf(parentIds: readonly string[]): Promise<SessionEntity[][]> {
    if (parentIds.length === 0) return [];
    const manager = this.reader();
    const rows = await plainRows(manager, manager
      .createQueryBuilder(SessionEntity, 's')
      .where(
        `s."id" IN (SELECT ranked."id" FROM (
          SELECT c."id", ROW_NUMBER() OVER (PARTITION BY c."parentId" ORDER BY c."createdAt", c."id") AS "rn"
          FROM "sessions" c WHERE c."parentId" IN (:...parentIds)) ranked
        WHERE ranked."rn" <= :most)`,
        { parentIds: [...new Set(parentIds)], most: HELPERS_PER_SESSION_MAX },
      )
      .orderBy('s."createdAt"', 'ASC')
      .addOrderBy('s."id"', 'ASC'));
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
    const manager = this.reader();
    const newest = (finished: boolean, take: number) => plainRows(manager, manager
      .createQueryBuilder(SessionEntity, 's')
      .where(`s."parentId" IS NULL AND s."finishedAt" IS ${finished ? 'NOT NULL' : 'NULL'}`)
      .orderBy('s."createdAt"', 'DESC')
      .addOrderBy('s."id"', 'DESC')
      .limit(take));
    const active = await newest(false, limit);
    if (active.length >= limit) return active;
    return [...active, ...(await newest(true, limit - active.length))];
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
    const manager = this.reader();
    const query = manager.createQueryBuilder(SessionEntity, 's').where('s."parentId" IS NULL');
    if (filter.finished === true) query.andWhere('s."finishedAt" IS NOT NULL');
    if (filter.finished === false) query.andWhere('s."finishedAt" IS NULL');
    // Ids are server-made ([\w-]); anything else in the prefix cannot match, and LIKE's own wildcards are escaped away by refusing them.
    if (filter.idPrefix) query.andWhere('s."id" LIKE :prefix', { prefix: `${filter.idPrefix.replace(/[^\w-]/g, '').replace(/_/g, '')}%` });
    if (filter.search) query.andWhere(searchCondition(filter.search));
    const totalCount = await query.clone().getCount();
    if (key) query.andWhere('(s."createdAt" < :at OR (s."createdAt" = :at AND s."id" < :id))', { at: key[0], id: key[1] });
    const rows = await plainRows(manager, query.orderBy('s."createdAt"', 'DESC').addOrderBy('s."id"', 'DESC').limit(size + 1));
    return pageFrom(rows, size, (row) => [row.createdAt, row.id], totalCount);
  }
}
