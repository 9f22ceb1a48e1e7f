#!/usr/bin/env node
import 'reflect-metadata';
import fs from 'node:fs';
import { Command } from 'commander';
import { loadConfig } from './config.js';
import { Database } from './db/database.js';
import { createSchema, printSortedSchema } from './graphql/schema.js';
import { createServices } from './services/index.js';

/** Operator commands: migrate, seed, schema. */
const program = new Command('taskbase').description('taskbase operator commands');

program
  .command('migrate')
  .description('apply pending migrations to DATABASE_URL')
  .action(async () => {
    const db = await Database.open(loadConfig().databaseUrl);
    await db.close();
    console.log('database is up to date');
  });

program
  .command('schema')
  .description('write the GraphQL schema, sorted, to schema.graphql (or --out)')
  .option('--out <file>', 'where to write it', 'schema.graphql')
  .action(async (options: { out: string }) => {
    fs.writeFileSync(options.out, printSortedSchema(await createSchema()));
    console.log(`wrote ${options.out}`);
  });

program
  .command('seed')
  .description('load the demo knowledge base into DATABASE_URL (idempotent)')
  .action(async () => {
    const { seedDemo } = await import('../seeds/demo.js');
    const db = await Database.open(loadConfig().databaseUrl);
    try {
      const summary = await seedDemo(createServices(db));
      console.log(summary);
    } finally {
      await db.close();
    }
  });

await program.parseAsync(process.argv);
