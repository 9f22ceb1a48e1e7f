import { Arg, Args, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Context } from '../context.js';
import { PageArgs } from '../inputs/page.args.js';
import { CreateNoteInput, EditNoteInput } from '../inputs/knowledge.inputs.js';
import { toMemory, toNote, toTask } from '../mappers.js';
import { toConnection } from '../types/connection.type.js';
import { MemoryConnection } from '../types/connections.type.js';
import { MemoryKindEnum, MemoryOrderEnum, MemoryStatusEnum } from '../types/enums.js';
import { Memory, Note, Task } from '../types/memory.type.js';
import { Domain } from '../types/domain.type.js';

/**
 * A read that names a domain records it on the calling session (for
 * reminders) — a write, so a read-only token's reads record nothing.
 */
async function namedDomain(ctx: Context, domain: string | null | undefined): Promise<void> {
  if (ctx.access === 'write') await ctx.services.sessionDomains.named(ctx.caller, domain);
}

/** Notes, and finding memories by domain or by words. */
@Resolver()
export class MemoryResolver {
  @Query(() => MemoryConnection, { description: 'Memories in a domain and its sub-domains, newest first (or most recently changed first: order). Sessions\' plans are not memories and are never listed.' })
  async memories(
    @Ctx() ctx: Context,
    @Args(() => PageArgs) { first, after }: PageArgs,
    @Arg('domain', { description: 'Scope, e.g. "acme/checkout" (covers "acme/checkout/billing", not "acme/checkoutx").' }) domain: string,
    @Arg('kind', () => MemoryKindEnum, { nullable: true, description: 'Only notes or only tasks.' }) kind?: MemoryKindEnum | null,
    @Arg('status', () => MemoryStatusEnum, { nullable: true, description: 'Only ACTIVE or only ARCHIVED.' }) status?: MemoryStatusEnum | null,
    @Arg('order', () => MemoryOrderEnum, { nullable: true, defaultValue: MemoryOrderEnum.NEWEST, description: 'NEWEST (by creation) or RECENTLY_UPDATED; a cursor belongs to the order it was read in.' }) order?: MemoryOrderEnum | null,
  ): Promise<MemoryConnection> {
    const page = await ctx.services.memoryReader.memories({ domain, kind, status, first, after, order }, ctx.committedVersion);
    await namedDomain(ctx, domain);
    return toConnection(page, toMemory);
  }

  @Query(() => [Task], { description: 'Open tasks of a scope (domain and below), most recently updated first (at most 200).' })
  async mustRead(@Ctx() ctx: Context, @Arg('domain', { description: 'Scope, e.g. "acme/checkout".' }) domain: string): Promise<Task[]> {
    const rows = await ctx.services.memoryReader.mustRead(domain, ctx.committedVersion);
    await namedDomain(ctx, domain);
    return rows.map(toTask);
  }

  @Query(() => MemoryConnection, {
    description:
      'Full-text search over notes (title, body) and tasks (title, goal, item labels); task notes and plans are never returned. ' +
      'Words, not a query language: the query is cut into runs of letters and digits, each must match as a word prefix (accents and case ignored), ' +
      'and any characters are safe; at most 1,000 characters and 32 words (TOO_LARGE). Best first: memories with every word in the title, then ' +
      'with some word in the title, then the rest; newest first within each. The order depends only on each memory, so paging with after ' +
      'neither repeats nor skips a hit while others write.',
  })
  async search(
    @Ctx() ctx: Context,
    @Args(() => PageArgs) { first, after }: PageArgs,
    @Arg('query', { description: 'Words to look for.' }) query: string,
    @Arg('domain', () => String, { nullable: true, description: 'Only this domain and below.' }) domain?: string | null,
    @Arg('kind', () => MemoryKindEnum, { nullable: true, description: 'Only notes or only tasks.' }) kind?: MemoryKindEnum | null,
  ): Promise<MemoryConnection> {
    const page = await ctx.services.memoryReader.search({ query, domain, kind, first, after }, ctx.committedVersion);
    await namedDomain(ctx, domain);
    return toConnection(page, toMemory);
  }

  @Query(() => [Domain], {
    description: 'Domains at and below `under` (all when null) that hold memories, sorted by path; a parent of such a domain is listed too, with counts over everything below it. At most 1,000 paths, the first in path order: narrow with under for the rest.',
  })
  async domains(@Ctx() ctx: Context, @Arg('under', () => String, { nullable: true, description: 'Scope; all domains when null.' }) under?: string | null): Promise<readonly Domain[]> {
    const rows = await ctx.services.memoryReader.domains(under, ctx.committedVersion);
    await namedDomain(ctx, under);
    return rows;
  }

  @Mutation(() => Note, { nullable: true, description: 'Records a note: a plain memory, searchable and linkable to items.' })
  async createNote(@Arg('input') input: CreateNoteInput, @Ctx() ctx: Context): Promise<Note> {
    return toNote(await ctx.services.notes.createNote(ctx.caller, input));
  }

  @Mutation(() => Note, { nullable: true, description: "Changes a note's title, body or domain." })
  async editNote(@Arg('input') input: EditNoteInput, @Ctx() ctx: Context): Promise<Note> {
    return toNote(await ctx.services.notes.editNote(ctx.caller, input));
  }

  @Mutation(() => Memory, {
    nullable: true,
    description:
      'Archives a note. A task archives itself once every live item is DONE or DROPPED: archiving a closed task returns it unchanged, and an open task is refused (BAD_USER_INPUT) with what to settle first.',
  })
  async archiveMemory(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<Memory> {
    return toMemory(await ctx.services.notes.archiveMemory(ctx.caller, id));
  }
}
