import { ObjectType } from 'type-graphql';
import { Connection } from './connection.type.js';
import { Item } from './item.type.js';
import { Memory } from './memory.type.js';
import { Session } from './session.type.js';
import { TaskEvent } from './task-event.type.js';

@ObjectType({ simpleResolvers: true, description: 'A page of items, in list order.' })
export class ItemConnection extends Connection(Item, 'Item') {}

@ObjectType({ simpleResolvers: true, description: "A page of a task's recorded changes, oldest first." })
export class TaskEventConnection extends Connection(TaskEvent, 'TaskEvent') {}

@ObjectType({ simpleResolvers: true, description: 'A page of memories (notes and tasks).' })
export class MemoryConnection extends Connection(Memory, 'Memory') {}

@ObjectType({ simpleResolvers: true, description: 'A page of top-level sessions, newest first.' })
export class SessionConnection extends Connection(Session, 'Session') {}
