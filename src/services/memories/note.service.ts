import type { ChangeAction } from '../../domain/history.js';
import { In } from 'typeorm';
import { DomainError, refuse } from '../../domain/errors.js';
import { cleanFreeText, cleanLabel } from '../../domain/text-rules.js';
import { cleanDomain } from '../../domain/domains.js';
import { checkNoBareReference, parseRefs } from '../../domain/refs.js';
import { taskStateOf } from '../../domain/states.js';
import { countsOf } from '../../db/task-counts.js';
import { parseId, TITLE_MAX } from '../../domain/task-rules.js';
import { ItemEntity, MemoryEntity } from '../../db/entities/index.js';
import { createOnce } from '../kernel/idempotency.js';
import type { SearchIndex } from '../search/search-index.js';
import type { Caller, UnitOfWork, Writer } from '../kernel/unit-of-work.js';

export interface CreateNoteInput {
  title: string;
  body: string;
  domain: string;
  idempotencyKey?: string | null;
}

export interface EditNoteInput {
  id: string;
  title?: string | null;
  body?: string | null;
  domain?: string | null;
}

function memoryNotFound(id: string): DomainError {
  return refuse('MEMORY_NOT_FOUND', { memoryId: id });
}

/** Plain memories (notes), and archiving any memory. */
export class NoteService {
  constructor(
    private readonly writer: Writer,
    private readonly search: SearchIndex,
  ) {}

  async createNote(caller: Caller, input: CreateNoteInput): Promise<MemoryEntity> {
    return this.writer.run(caller, (uow) => createOnce(uow, 'createNote', input,
      (stored) => uow.manager.findOneBy(MemoryEntity, { id: Number(stored.id) }),
      async () => {
        const title = cleanLabel(input.title, 'title', TITLE_MAX);
        const domain = cleanDomain(input.domain);
        uow.touchDomain(domain);
        const body = await this.cleanBody(uow, input.body);
        const note = uow.manager.create(MemoryEntity, {
          kind: 'NOTE', title, domain, body, goal: '', archived: false, version: 1, sessionId: null, createdAt: uow.now, updatedAt: uow.now,
        });
        note.id = Number((await uow.manager.insert(MemoryEntity, note)).identifiers[0].id);
        await this.search.index(uow.manager, { id: note.id, title, text: body });
        uow.emit({ entity: 'NOTE', id: String(note.id), action: 'NOTE_CREATED', memory: { kind: 'NOTE', domain } });
        return { result: note, stored: { id: String(note.id) } };
      }));
  }

  async editNote(caller: Caller, input: EditNoteInput): Promise<MemoryEntity> {
    return this.writer.run(caller, async (uow) => {
      const note = await this.loadNote(uow, input.id);
      const change: Partial<MemoryEntity> = {};
      if (input.title !== null && input.title !== undefined) change.title = cleanLabel(input.title, 'title', TITLE_MAX);
      if (input.body !== null && input.body !== undefined) change.body = await this.cleanBody(uow, input.body);
      if (input.domain !== null && input.domain !== undefined) {
        change.domain = cleanDomain(input.domain);
        uow.touchDomain(change.domain);
      }
      if (Object.keys(change).length === 0) throw refuse('NOTHING_TO_CHANGE', { operation: 'editNote', fields: ['title', 'body', 'domain'] });
      await this.save(uow, note, change, 'NOTE_EDITED');
      return note;
    });
  }

  /**
   * Archives a note. A task archives itself when its live items are all DONE or DROPPED,
   * so archiving a closed task changes nothing and an open one is refused
   * with what to do instead.
   */
  async archiveMemory(caller: Caller, id: string): Promise<MemoryEntity> {
    return this.writer.run(caller, async (uow) => {
      const memoryId = parseId(id);
      const memory = memoryId === null ? null : await uow.manager.findOneBy(MemoryEntity, { id: memoryId });
      if (!memory || memory.sessionId) throw memoryNotFound(id);
      uow.touchDomain(memory.domain);
      if (memory.kind === 'TASK') {
        if (taskStateOf(countsOf(memory)) === 'OPEN') {
          throw new DomainError(
            'BAD_USER_INPUT',
            `Task ${memory.id} is still open; a task is archived when every live item is DONE or DROPPED. Mark its remaining items DONE, or DROPPED with a reason (BLOCKED and FAILED items keep it open).`,
            { taskId: String(memory.id) },
          );
        }
        return memory;
      }
      if (!memory.archived) await this.save(uow, memory, { archived: true }, 'NOTE_ARCHIVED');
      return memory;
    });
  }

  private async loadNote(uow: UnitOfWork, id: string): Promise<MemoryEntity> {
    const noteId = parseId(id);
    const note = noteId === null ? null : await uow.manager.findOneBy(MemoryEntity, { id: noteId });
    if (note?.kind === 'TASK' && !note.sessionId) {
      throw new DomainError('BAD_USER_INPUT', `Memory ${note.id} is a task, not a note; change it with editTask (title, goal, domain) or the item mutations.`, { memoryId: String(note.id), kind: 'TASK' });
    }
    if (!note || note.kind !== 'NOTE') throw memoryNotFound(id);
    uow.touchDomain(note.domain);
    return note;
  }

  private async save(uow: UnitOfWork, note: MemoryEntity, change: Partial<MemoryEntity>, action: ChangeAction): Promise<void> {
    change.updatedAt = uow.now;
    change.version = note.version + 1;
    await uow.manager.update(MemoryEntity, { id: note.id }, change);
    Object.assign(note, change);
    await this.search.index(uow.manager, { id: note.id, title: note.title, text: note.body });
    uow.emit({ entity: 'NOTE', id: String(note.id), action, memory: { kind: 'NOTE', domain: note.domain } });
  }

  /** A note's body is free text: it may cite any existing item as [[#id]], never as a bare i3. */
  private async cleanBody(uow: UnitOfWork, raw: string): Promise<string> {
    const body = cleanFreeText(raw, 'body');
    checkNoBareReference(body, 'body');
    const cited = parseRefs(body);
    const ids = cited.map(parseId).filter((id): id is number => id !== null);
    const found = new Set(ids.length ? (await uow.manager.findBy(ItemEntity, { id: In(ids) })).map((item) => String(item.id)) : []);
    const unknown = cited.filter((id) => !found.has(String(parseId(id))));
    if (unknown.length) {
      throw new DomainError(
        'UNKNOWN_REFERENCE',
        `body cites ${unknown.map((id) => `[[#${id}]]`).join(', ')}, which names no item. A note may cite any existing item by its id; fix the id or remove the token.`,
        { field: 'body', unknownIds: unknown },
      );
    }
    return body;
  }
}
