import type { MigrationInterface, QueryRunner } from 'typeorm';
import { nameWords } from '../../domain/session-names.js';

/**
 * Two things the sessions list reads:
 * - "preset": the tool set a session started with (WHOLE_LIST, STEP_OPS,
 *   PLAN_AND_FINISH), so the dashboard shows its plan in that set's words
 *   even after setPlanRules changed a rule. Null for sessions started
 *   before; Session.preset then reads the preset their rules match best.
 * - "session_name_words": each word of a session's name (nameWords), so a
 *   search by words of the name is a range of this primary key per word,
 *   not a scan of every name. Filled here for the names already stored.
 *   On PostgreSQL the word compares byte by byte (COLLATE "C"), as SQLite's
 *   does, so a word's range holds exactly the words that start with it.
 */
export class SessionPresetsAndNameWords1764580000000 implements MigrationInterface {
  name = 'SessionPresetsAndNameWords1764580000000';

  async up(runner: QueryRunner): Promise<void> {
    const postgres = runner.connection.options.type === 'postgres';
    await runner.query(`ALTER TABLE "sessions" ADD COLUMN "preset" VARCHAR(20)`);
    await runner.query(`CREATE TABLE "session_name_words" (
      "word" VARCHAR(120)${postgres ? ' COLLATE "C"' : ''} NOT NULL,
      "sessionId" VARCHAR(64) NOT NULL,
      PRIMARY KEY ("word", "sessionId")
    )`);
    const named: { id: string; name: string }[] = await runner.query(`SELECT "id", "name" FROM "sessions" WHERE "name" IS NOT NULL`);
    const rows = named.flatMap(({ id, name }) => nameWords(name).map((word) => [word, id]));
    // A few hundred rows per statement keep under either database's parameter limit.
    for (let start = 0; start < rows.length; start += 400) {
      const batch = rows.slice(start, start + 400);
      const values = batch.map((_, i) => (postgres ? `($${2 * i + 1}, $${2 * i + 2})` : '(?, ?)')).join(', ');
      await runner.query(`INSERT INTO "session_name_words" ("word", "sessionId") VALUES ${values}`, batch.flat());
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "session_name_words"`);
    await runner.query(`ALTER TABLE "sessions" DROP COLUMN "preset"`);
  }
}
