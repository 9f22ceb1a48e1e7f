import { Field, ID, ObjectType } from 'type-graphql';
import { Connection } from './connection.type.js';

@ObjectType({ simpleResolvers: true, description: 'A comment on a task or one of its items.' })
export class Comment {
  taskId: number;
  itemId: number | null;

  @Field(() => ID, { description: 'The comment id.' })
  id: string;

  @Field({ description: 'The comment as written, [[#id]] tokens kept.' })
  body: string;

  @Field({ description: 'When it was written.' })
  createdAt: Date;
}

@ObjectType({ simpleResolvers: true, description: 'A page of comments, oldest first.' })
export class CommentConnection extends Connection(Comment, 'Comment') {
  taskId: number;
}
