/**
 * schema.graphql is a snapshot of the code-first schema. That it holds the
 * whole API contract is checked by .ci/run (the contract checker is not part
 * of this repository); npm test needs nothing outside it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSchema, isObjectType, isInputObjectType, isInterfaceType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createSchema, printSortedSchema } from '../../src/graphql/schema.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

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

});
