import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The whole first schema. SQLite and PostgreSQL differ only in how an
 * auto-increment key is spelled and in the search index (FTS5 there,
 * tsvector here), so the DDL is written once with those two pieces swapped.
 */
export class Initial1764460000000 implements MigrationInterface {
  name = 'Initial1764460000000';

  async up(runner: QueryRunner): Promise<void> {
    const postgres = runner.connection.options.type === 'postgres';
    const key = postgres ? 'SERIAL PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT';
    const no = postgres ? 'FALSE' : '0';
    const statements = [
      `CREATE TABLE "memories" (
        "id" ${key},
        "kind" VARCHAR(8) NOT NULL,
        "title" VARCHAR(400) NOT NULL,
        "domain" VARCHAR(400),
        "body" TEXT NOT NULL DEFAULT '',
        "goal" TEXT NOT NULL DEFAULT '',
        "archived" BOOLEAN NOT NULL DEFAULT ${no},
        "version" INTEGER NOT NULL DEFAULT 1,
        "sessionId" VARCHAR(64),
        "createdAt" VARCHAR(24) NOT NULL,
        "updatedAt" VARCHAR(24) NOT NULL)`,
      `CREATE INDEX "idx_memories_domain" ON "memories" ("domain")`,
      `CREATE INDEX "idx_memories_updated" ON "memories" ("updatedAt", "id")`,
      `CREATE TABLE "items" (
        "id" ${key},
        "taskId" INTEGER NOT NULL REFERENCES "memories" ("id") ON DELETE CASCADE,
        "text" VARCHAR(1000) NOT NULL,
        "state" VARCHAR(16) NOT NULL,
        "position" INTEGER NOT NULL,
        "deleted" BOOLEAN NOT NULL DEFAULT ${no},
        "added" BOOLEAN NOT NULL DEFAULT ${no},
        "note" TEXT,
        "createdAt" VARCHAR(24) NOT NULL,
        "updatedAt" VARCHAR(24) NOT NULL)`,
      `CREATE INDEX "idx_items_task_position" ON "items" ("taskId", "position")`,
      `CREATE INDEX "idx_items_task_state" ON "items" ("taskId", "deleted", "state")`,
      `CREATE TABLE "task_events" (
        "id" ${key},
        "taskId" INTEGER NOT NULL REFERENCES "memories" ("id") ON DELETE CASCADE,
        "at" VARCHAR(24) NOT NULL,
        "action" VARCHAR(32) NOT NULL,
        "sessionId" VARCHAR(64),
        "items" TEXT NOT NULL,
        "changes" TEXT NOT NULL)`,
      `CREATE INDEX "idx_task_events_task" ON "task_events" ("taskId", "id")`,
      `CREATE TABLE "comments" (
        "id" ${key},
        "taskId" INTEGER NOT NULL REFERENCES "memories" ("id") ON DELETE CASCADE,
        "itemId" INTEGER REFERENCES "items" ("id") ON DELETE CASCADE,
        "body" TEXT NOT NULL,
        "createdAt" VARCHAR(24) NOT NULL)`,
      `CREATE INDEX "idx_comments_task" ON "comments" ("taskId", "id")`,
      `CREATE INDEX "idx_comments_item" ON "comments" ("itemId", "id")`,
      `CREATE TABLE "task_notes" (
        "id" ${key},
        "taskId" INTEGER NOT NULL REFERENCES "memories" ("id") ON DELETE CASCADE,
        "title" VARCHAR(400) NOT NULL,
        "body" TEXT,
        "brief" TEXT,
        "createdAt" VARCHAR(24) NOT NULL,
        "updatedAt" VARCHAR(24) NOT NULL)`,
      `CREATE INDEX "idx_task_notes_task" ON "task_notes" ("taskId", "id")`,
      `CREATE TABLE "task_note_items" (
        "noteId" INTEGER NOT NULL REFERENCES "task_notes" ("id") ON DELETE CASCADE,
        "itemId" INTEGER NOT NULL REFERENCES "items" ("id") ON DELETE CASCADE,
        PRIMARY KEY ("noteId", "itemId"))`,
      `CREATE INDEX "idx_task_note_items_item" ON "task_note_items" ("itemId")`,
      `CREATE TABLE "item_links" (
        "itemId" INTEGER NOT NULL REFERENCES "items" ("id") ON DELETE CASCADE,
        "memoryId" INTEGER NOT NULL REFERENCES "memories" ("id") ON DELETE CASCADE,
        "createdAt" VARCHAR(24) NOT NULL,
        PRIMARY KEY ("itemId", "memoryId"))`,
      `CREATE INDEX "idx_item_links_memory" ON "item_links" ("memoryId")`,
      `CREATE TABLE "sessions" (
        "id" VARCHAR(64) PRIMARY KEY,
        "parentId" VARCHAR(64) REFERENCES "sessions" ("id"),
        "rules" TEXT NOT NULL,
        "planTaskId" INTEGER REFERENCES "memories" ("id"),
        "planStanding" BOOLEAN NOT NULL DEFAULT ${no},
        "turn" INTEGER NOT NULL DEFAULT 0,
        "finishedAt" VARCHAR(24),
        "lastRemindedAt" VARCHAR(24),
        "createdAt" VARCHAR(24) NOT NULL)`,
      `CREATE INDEX "idx_sessions_parent" ON "sessions" ("parentId")`,
      `CREATE TABLE "session_domains" (
        "sessionId" VARCHAR(64) NOT NULL REFERENCES "sessions" ("id") ON DELETE CASCADE,
        "domain" VARCHAR(400) NOT NULL,
        "createdAt" VARCHAR(24) NOT NULL,
        PRIMARY KEY ("sessionId", "domain"))`,
      `CREATE TABLE "settings" (
        "key" VARCHAR(64) PRIMARY KEY,
        "value" TEXT NOT NULL)`,
      `CREATE TABLE "idempotency_keys" (
        "operation" VARCHAR(32) NOT NULL,
        "key" VARCHAR(300) NOT NULL,
        "fingerprint" VARCHAR(64) NOT NULL,
        "result" TEXT NOT NULL,
        "createdAt" VARCHAR(24) NOT NULL,
        PRIMARY KEY ("operation", "key"))`,
      postgres
        ? `CREATE TABLE "memory_search" (
            "memoryId" INTEGER PRIMARY KEY REFERENCES "memories" ("id") ON DELETE CASCADE,
            "document" TSVECTOR NOT NULL)`
        : `CREATE VIRTUAL TABLE "memory_search" USING fts5(title, body, tokenize = 'unicode61 remove_diacritics 2')`,
      ...(postgres ? [`CREATE INDEX "idx_memory_search" ON "memory_search" USING GIN ("document")`] : []),
    ];
    for (const sql of statements) await runner.query(sql);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of [
      'memory_search', 'idempotency_keys', 'settings', 'session_domains', 'sessions', 'item_links',
      'task_note_items', 'task_notes', 'comments', 'task_events', 'items', 'memories',
    ]) {
      await runner.query(`DROP TABLE "${table}"`);
    }
  }
}
