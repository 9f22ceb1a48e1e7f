/**
 * schema.graphql is a snapshot of the code-first schema, and it holds the
 * whole API contract (../shared/api/contract.graphql).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildSchema, isObjectType, isInputObjectType, isInterfaceType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createSchema, printSortedSchema } from '../src/graphql/schema.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const checker = path.resolve(root, '../shared/tools/contract-check.mjs');

describe('schema.graphql', () => {
  it('is exactly the schema the code builds', async () => {
    const built = printSortedSchema(await createSchema());
    const committed = fs.readFileSync(path.join(root, 'schema.graphql'), 'utf8');
    expect(committed === built, 'schema.graphql differs from the schema the code builds: run `npm run schema` and commit the result').toBe(true);
  });

  it('describes every type and field: the schema is the API documentation', () => {
    const schema = buildSchema(fs.readFileSync(path.join(root, 'schema.graphql'), 'utf8'));
    const undocumented: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(type.name)) continue;
      if (!type.description) undocumented.push(type.name);
      if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) if (!field.description) undocumented.push(`${type.name}.${field.name}`);
      }
    }
    expect(undocumented).toEqual([]);
  });

  it('contains the whole API contract (the contract checker finds nothing missing or different)', async () => {
    expect(fs.existsSync(checker), `the contract checker is missing at ${checker}: clone the project beside ../shared`).toBe(true);
    const { stdout } = await promisify(execFile)(process.execPath, [checker], { cwd: root }).catch((error) => {
      throw new Error(`contract check failed:\n${error.stdout ?? error.message}`);
    });
    expect(stdout).toContain('schema.graphql contains the whole contract');
  });
});
