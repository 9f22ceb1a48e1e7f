/**
 * The answer budget counts every field an answer carries, plain properties
 * too: a field without a resolver is not wrapped (so graphql-jit reads it
 * inline) and is charged with its object instead. Run on a schema of its own
 * so the text is large without the API's caps, through graphql-js and
 * graphql-jit, as the server runs queries.
 */
import { describe, expect, it } from 'vitest';
import {
  GraphQLID, GraphQLInterfaceType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, execute, parse,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { budgetedSchema, newBudget, RESPONSE_BUDGET_CHARS, type ExecutionBudget } from '../../src/graphql/execution/execution-budget.js';

class Page { constructor(readonly id: string, readonly text: string) {} }
class Other { constructor(readonly id: string) {} }

function schemaOf(pages: unknown[]): GraphQLSchema {
  const Entry = new GraphQLInterfaceType({
    name: 'Entry',
    fields: { id: { type: new GraphQLNonNull(GraphQLID) } },
    resolveType: (value) => (value instanceof Page ? 'Page' : 'Other'),
  });
  const PageType = new GraphQLObjectType({
    name: 'Page', interfaces: [Entry],
    fields: { id: { type: new GraphQLNonNull(GraphQLID) }, text: { type: new GraphQLNonNull(GraphQLString) } },
  });
  const OtherType = new GraphQLObjectType({ name: 'Other', interfaces: [Entry], fields: { id: { type: new GraphQLNonNull(GraphQLID) } } });
  const Query = new GraphQLObjectType({
    name: 'Query',
    fields: {
      pages: { type: new GraphQLList(PageType), resolve: () => pages },
      entries: { type: new GraphQLList(Entry), resolve: () => pages },
    },
  });
  const schema = new GraphQLSchema({ query: Query, types: [PageType, OtherType] });
  budgetedSchema(schema);
  return schema;
}

/** Runs `query` both ways; each answer with the budget it left. */
async function runBoth(schema: GraphQLSchema, query: string, variables: Record<string, unknown> = {}) {
  const document = parse(query);
  const answers: { data: unknown; budget: ExecutionBudget }[] = [];
  const jsBudget = newBudget();
  const js = await execute({ schema, document, contextValue: { budget: jsBudget }, variableValues: variables });
  answers.push({ data: js.data, budget: jsBudget });
  const compiled = compileQuery(schema, document);
  if (!isCompiledQuery(compiled)) throw new Error('the query did not compile');
  for (let run = 0; run < 2; run++) { // the second run reads the selection worked out by the first
    const budget = newBudget();
    const jit = await compiled.query(undefined, { budget }, variables);
    answers.push({ data: jit.data, budget });
  }
  return answers;
}

const LONG = 'x'.repeat(4 * 1024 * 1024);

describe('the answer budget', () => {
  it('stops an answer whose plain text fields pass 32 MB, by whichever executor', async () => {
    const schema = schemaOf(Array.from({ length: 10 }, (_, i) => new Page(String(i), LONG)));
    for (const { budget } of await runBoth(schema, '{ pages { id text } }')) {
      expect(budget.exceeded?.extensions.code).toBe('TOO_LARGE');
      expect(budget.chars).toBeGreaterThan(RESPONSE_BUDGET_CHARS);
    }
  });

  it('counts each alias of a plain field, and fields asked through an interface\'s fragment', async () => {
    const schema = schemaOf(Array.from({ length: 5 }, (_, i) => new Page(String(i), LONG)));
    for (const { budget } of await runBoth(schema, '{ pages { a: text b: text } }')) expect(budget.exceeded?.extensions.code).toBe('TOO_LARGE');
    for (const { budget } of await runBoth(schema, '{ entries { id ... on Page { a: text b: text } } }')) expect(budget.exceeded?.extensions.code).toBe('TOO_LARGE');
    for (const { budget } of await runBoth(schema, '{ entries { ...twice } } fragment twice on Page { a: text b: text }')) expect(budget.exceeded?.extensions.code).toBe('TOO_LARGE');
  });

  it('answers what fits, charging only the fields asked for (and @skip leaves a field uncharged)', async () => {
    const schema = schemaOf([new Page('1', LONG), new Other('2')]);
    for (const { data, budget } of await runBoth(schema, '{ entries { id ... on Page { text } } }')) {
      expect(budget.exceeded).toBeNull();
      expect(budget.chars).toBeGreaterThan(LONG.length);
      expect(budget.chars).toBeLessThan(LONG.length + 1_000);
      expect((data as { entries: unknown[] }).entries).toHaveLength(2);
    }
    const query = 'query($skip: Boolean!) { entries { id ... on Page { text @skip(if: $skip) } } }';
    for (const { budget } of await runBoth(schema, query, { skip: true })) expect(budget.chars).toBeLessThan(1_000);
    for (const { budget } of await runBoth(schema, query, { skip: false })) expect(budget.chars).toBeGreaterThan(LONG.length);
  });
});
