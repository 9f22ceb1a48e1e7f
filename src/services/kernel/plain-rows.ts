import type { EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';

type Convert = (value: unknown) => unknown;

/** How one result column becomes one property of the entity. */
interface ColumnPlan {
  property: string;
  convert: Convert | null;
}

const toBoolean: Convert = (value) => (value === null || value === undefined ? value : value === true || value === 1 || value === '1');
const fromJson: Convert = (value) => (typeof value === 'string' ? JSON.parse(value) : value);

/** What a column of type `type` needs to become what TypeORM would have hydrated; null when nothing. */
function typeConverter(type: unknown): Convert | null {
  if (type === 'boolean' || type === Boolean) return toBoolean;
  if (type === 'simple-json') return fromJson;
  return null;
}

/** The column's type conversion, then its transformers' `from` (a session's rules get their defaults there), as TypeORM applies them. */
function converterFor(column: ColumnMetadata): Convert | null {
  const convert = typeConverter(column.type);
  const transformer = column.transformer;
  if (!transformer) return convert;
  const transformers = Array.isArray(transformer) ? [...transformer].reverse() : [transformer];
  return (value) => transformers.reduce((stored, each) => each.from(stored), convert ? convert(value) : value);
}

/**
 * The rows of an entity query (built with TypeORM's query builder, one
 * alias, its own columns only), read without TypeORM's hydration: on SQLite
 * straight from the prepared statement as arrays (better-sqlite3 builds a
 * JS object per row and per column otherwise: 200 memories take 7 ms as
 * objects and 2.3 ms as arrays), on PostgreSQL through the query runner;
 * then each becomes an instance of the entity, with booleans and JSON
 * columns converted as TypeORM would. The statement is logged once like
 * any other, so the statement counts (tests, the bench) still see it.
 */
export async function plainRows<T extends ObjectLiteral>(manager: EntityManager, query: SelectQueryBuilder<T>): Promise<T[]> {
  const alias = query.alias;
  const metadata = query.expressionMap.mainAlias!.metadata;
  const byColumn = new Map(metadata.columns.map((column) => [column.databaseName, column]));
  const planFor = (name: string): ColumnPlan => {
    const databaseName = name.startsWith(`${alias}_`) ? name.slice(alias.length + 1) : name;
    const column = byColumn.get(databaseName);
    if (!column) throw new Error(`plainRows: the query selects ${name}, which is not a column of ${metadata.name}`);
    return { property: column.propertyName, convert: converterFor(column) };
  };
  const [sql, parameters] = query.getQueryAndParameters();
  const Entity = metadata.target as new () => T;
  if (manager.connection.driver.options.type === 'better-sqlite3') {
    // Past TypeORM's query runner, so logged here (PostgreSQL's goes through it, and is logged there).
    manager.connection.logger.logQuery(sql, parameters);
    const connection = (manager.connection.driver as unknown as { databaseConnection: SqliteConnection }).databaseConnection;
    const statement = connection.prepare(sql);
    const plans = statement.columns().map((column) => planFor(column.name));
    let rows: unknown[][];
    try {
      rows = statement.raw(true).all(...parameters.map((p) => (typeof p === 'boolean' ? Number(p) : p)));
    } finally {
      // The statement is shared (one cache per connection): TypeORM reads it as objects.
      statement.raw(false);
    }
    return rows.map((row) => {
      const entity = new Entity() as Record<string, unknown>;
      for (let i = 0; i < plans.length; i += 1) {
        const { property, convert } = plans[i];
        entity[property] = convert ? convert(row[i]) : row[i];
      }
      return entity as T;
    });
  }
  const rows: Record<string, unknown>[] = await manager.query(sql, parameters);
  const plans = new Map<string, ColumnPlan>();
  return rows.map((row) => {
    const entity = new Entity() as Record<string, unknown>;
    for (const name of Object.keys(row)) {
      let plan = plans.get(name);
      if (!plan) plans.set(name, (plan = planFor(name)));
      entity[plan.property] = plan.convert ? plan.convert(row[name]) : row[name];
    }
    return entity as T;
  });
}

/**
 * One entity from a raw row whose columns are named `<prefix><column>` (a
 * statement that selects more than one entity's columns, which plainRows
 * does not read), converted as TypeORM would.
 */
export function entityFromRow<T extends ObjectLiteral>(manager: EntityManager, entity: new () => T, row: Record<string, unknown>, prefix: string): T {
  const made = new entity() as Record<string, unknown>;
  for (const column of manager.connection.getMetadata(entity).columns) {
    const value = row[`${prefix}${column.databaseName}`];
    const convert = converterFor(column);
    made[column.propertyName] = convert ? convert(value) : value;
  }
  return made as T;
}

interface SqliteStatement {
  columns(): { name: string }[];
  raw(on: boolean): SqliteStatement;
  all(...parameters: unknown[]): unknown[][];
}
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}
