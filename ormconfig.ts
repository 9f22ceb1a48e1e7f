/**
 * The DataSource for the TypeORM CLI, from DATABASE_URL like the server.
 * Built to dist/ormconfig.js, e.g.:
 *   npm run build && npx typeorm migration:show -d dist/ormconfig.js
 * (the server itself migrates on start; `npm run migrate` does only that).
 */
import 'reflect-metadata';
import { loadConfig } from './src/config.js';
import { createDataSource } from './src/db/data-source.js';

export default createDataSource(loadConfig().databaseUrl, 'writer');
