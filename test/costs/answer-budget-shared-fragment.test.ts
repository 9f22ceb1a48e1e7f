/**
 * The answer budget charges a plain field by the selection of the object
 * holding it. A fragment's field is one node of the document however many
 * places spread it, and in each place it may be merged with other fields of
 * the same name: what one place selects must not be taken for another's.
 * Run on a schema of its own so the text is large without the API's caps,
 * through graphql-js and graphql-jit, as the server runs queries.
 */
import { describe, expect, it } from 'vitest';
import { GraphQLID, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, execute, parse } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { budgetedSchema, newBudget, RESPONSE_BUDGET_CHARS, type ExecutionBudget } from '../../src/graphql/execution/execution-budget.js';

const LONG = 'x'.repeat(4 * 1024 * 1024);

function schema(): GraphQLSchema {
  const Page = new GraphQLObjectType({
    name: 'Page',
    fields: { id: { type: new GraphQLNonNull(GraphQLID) }, text: { type: new GraphQLNonNull(GraphQLString) } },
  });
  const Book = new GraphQLObjectType({
    name: 'Book',
    fields: { pages: { type: new GraphQLList(Page), resolve: () => Array.from({ length: 10 }, (_, i) => ({ id: String(i), text: LONG })) } },
  });
  const Query = new GraphQLObjectType({
    name: 'Query',
    fields: { small: { type: Book, resolve: () => ({}) }, big: { type: Book, resolve: () => ({}) } },
  });
  const built = new GraphQLSchema({ query: Query });
  budgetedSchema(built);
  return built;
}

async function budgetsOf(query: string): Promise<ExecutionBudget[]> {
  const built = schema();
  const document = parse(query);
  const budgets: ExecutionBudget[] = [];
  const js = newBudget();
  await execute({ schema: built, document, contextValue: { budget: js } });
  budgets.push(js);
  const compiled = compileQuery(built, parse(query));
  if (!isCompiledQuery(compiled)) throw new Error('the query did not compile');
  for (let run = 0; run < 2; run++) {
    const budget = newBudget();
    await compiled.query(undefined, { budget }, {});
    budgets.push(budget);
  }
  return budgets;
}

describe('the answer budget, with a fragment spread in two places', () => {
  it('charges the text one place merges into the fragment\'s field, whichever place runs first', async () => {
    // `small` spreads the fragment alone (pages { id }); `big` merges text into the same pages field: 40 MB of text.
    const query = '{ small { ...ids } big { ...ids pages { text } } } fragment ids on Book { pages { id } }';
    for (const budget of await budgetsOf(query)) {
      expect(budget.exceeded?.extensions.code).toBe('TOO_LARGE');
      expect(budget.chars).toBeGreaterThan(RESPONSE_BUDGET_CHARS);
    }
  });
});
