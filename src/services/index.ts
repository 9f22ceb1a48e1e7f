import type { Database } from '../db/database.js';
import { ChangeBus } from './changes.js';
import type { SearchIndex } from './search/search-index.js';
import { SqliteSearchIndex } from './search/sqlite-search-index.js';
import { TaskReader } from './task-reader.js';
import { TaskService } from './task.service.js';
import { Writer, type Clock } from './unit-of-work.js';

export interface ServiceOptions {
  clock?: Clock;
  bus?: ChangeBus;
}

/** Every use case, built once per process over one database. Free of HTTP and GraphQL. */
export function createServices(db: Database, options: ServiceOptions = {}) {
  const clock = options.clock ?? (() => new Date());
  const bus = options.bus ?? new ChangeBus();
  const writer = new Writer(db, bus, clock);
  const search: SearchIndex = new SqliteSearchIndex();
  const reader = () => db.reader;
  return {
    db,
    bus,
    clock,
    tasks: new TaskService(writer, search),
    taskReader: new TaskReader(reader),
  };
}

export type Services = ReturnType<typeof createServices>;
