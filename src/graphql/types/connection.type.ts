import { Field, Int, ObjectType } from 'type-graphql';
import type { Page } from '../../domain/paging.js';
import { PageInfo } from './common.type.js';

/**
 * A Relay connection over one node type: `ItemConnection extends
 * Connection(Item, 'Item')` makes ItemEdge and the connection's fields.
 */
export function Connection<TNode extends object>(nodeType: abstract new (...args: never[]) => TNode, name: string) {
  @ObjectType(`${name}Edge`, { simpleResolvers: true, description: `One ${name} with its cursor.` })
  class Edge {
    @Field({ description: 'Pass as after to start the next page after this row.' })
    cursor: string;

    @Field(() => nodeType, { description: 'The row.' })
    node: TNode;
  }

  @ObjectType({ simpleResolvers: true })
  abstract class ConnectionBase {
    @Field(() => [Edge], { description: 'The rows of this page with their cursors.' })
    edges: Edge[];

    @Field(() => [nodeType], { description: 'The rows of this page.' })
    nodes: TNode[];

    @Field(() => PageInfo, { description: 'Whether more follow, and the cursor to ask for them.' })
    pageInfo: PageInfo;

    @Field(() => Int, { description: 'Rows in the whole list, across pages.' })
    totalCount: number;
  }
  return ConnectionBase;
}

/**
 * A service page, mapped to GraphQL nodes. The edges (a cursor each) are
 * made when the query reads them: the executor reads a field's property only
 * when the query asks for it.
 */
export function toConnection<TRow, TNode>(page: Page<TRow>, map: (row: TRow) => TNode) {
  const nodes = page.nodes.map(map);
  return {
    get edges() {
      return nodes.map((node, index) => ({ cursor: page.cursors[index]!, node }));
    },
    nodes,
    pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor },
    totalCount: page.totalCount,
  };
}
