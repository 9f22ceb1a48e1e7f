import { GraphQLError, createSourceEventStream, execute, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Logger } from 'pino';
import WebSocket from 'ws';
import type { Services } from '../../services/index.js';
import type { SubscriptionLimits } from '../../http/subscription-limits.js';
import type { Context } from '../context.js';
import { runningBudget } from '../execution/execution-budget.js';
import { createLoaders } from '../loaders.js';

/** One subscription as the fan-out knows it: where its events go, and whose budget they are built on. */
export interface Subscriber {
  socket: WebSocket;
  /** The graphql-ws id of the subscription on its socket. */
  id: string;
  /** Whose budget: the token's principal, or with auth off the client (the loopback range is one). */
  owner: string;
  /** What makes two subscriptions one execution: the owner, its access, the document, operation name and variables. */
  key: string;
}

interface Member {
  subscriber: Subscriber;
  group: Group;
  /** Ends the subscription: with one last result (TOO_LARGE), or with none. */
  end(last: ExecutionResult | null): void;
}

/** The subscriptions of one key: one source stream (one pub/sub listener) and one execution per change. */
interface Group {
  key: string;
  owner: string;
  args: ExecutionArgs;
  members: Set<Member>;
  /** Resolves with the source stream once it is open, or with the errors that refused it. */
  ready: Promise<AsyncIterator<unknown> | ExecutionResult>;
  closed: boolean;
}

interface Pending { group: Group; payload: unknown; queuedAt: number }

/** One owner's share: its queue of changes to build, and what it holds now. */
interface Share { queue: Pending[]; running: number; bytes: number }

/** What a subscription is told when its event waited past TASKBASE_WS_FANOUT_WAIT_MS. */
function cannotKeepUp(waitMs: number): GraphQLError {
  return new GraphQLError(
    `This subscription's events could not be sent within ${waitMs / 1000} s (TASKBASE_WS_FANOUT_WAIT_MS): this token's subscriptions ask for more ` +
      'than the server builds and sends in that time, so it was closed. Subscribe to fewer or smaller documents (smaller pages, fewer text fields), ' +
      'share one document between listeners (the same document and variables are built once), or query POST /graphql after a change instead.',
    { extensions: { code: 'TOO_LARGE', limit: waitMs } },
  );
}

/**
 * A socket that leaves an event unwritten this long is closed. Longer than an
 * event's wait for its turn: a busy client reading a large event is slow, not
 * stalled, and until then what it holds counts against its own token's budget only.
 */
const SLOW_SOCKET_MS = 30_000;
/** The close reason (at most 123 bytes) for a socket that did not read its events in time. */
const SLOW_SOCKET = `This socket left an event unread for ${SLOW_SOCKET_MS / 1000} s, so it was closed. Read faster or subscribe to less.`;
/** Groups of subscriptions ended (told TOO_LARGE) in one turn of the event loop. */
const GROUPS_ENDED_PER_TURN = 16;
/** Bytes of events handed to sockets in one turn of the event loop. */
const BYTES_PER_TURN = 4 * 1024 * 1024;
/** graphql-ws' close codes are 44xx; this one says what was sent was too much for the reader. */
const TOO_MUCH_UNREAD = 4413;

/**
 * Builds and sends subscription events with a bounded cost, however many
 * subscribers a change has. Subscriptions with the same key share one
 * execution per change, its answer serialised once and written to each
 * socket as the same bytes (a fragmented WebSocket message around one
 * shared buffer, so a thousand subscribers hold one copy). Executions run
 * within a budget per owner and one for the server (executions at once,
 * bytes not yet written); past it, changes queue, owners take turns, and
 * a change that waited past fanOutWaitMs ends the subscriptions it was for
 * with one TOO_LARGE. A socket that leaves an event unread for
 * SLOW_SOCKET_MS is closed. Each event is an answer of its own, with a fresh size and time
 * budget and fresh loaders.
 */
export class FanOut {
  private readonly groups = new Map<string, Group>();
  /** Insertion order is whose turn it is: an owner that starts an execution goes to the back. */
  private readonly shares = new Map<string, Share>();
  /** Per socket, when each of its unwritten events was sent, oldest first. */
  private readonly unwritten = new Map<WebSocket, number[]>();
  private running = 0;
  private bytes = 0;
  /** Subscriptions accepted, from onSubscribe until they end. */
  private held = 0;
  private scheduled = false;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly services: Services,
    private readonly limits: SubscriptionLimits,
    /** The error mapping POST /graphql uses, applied once per built event. */
    private readonly show: (result: ExecutionResult) => ExecutionResult,
    private readonly logger: Logger,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(50, Math.min(1_000, limits.fanOutWaitMs / 4)));
    this.sweeper.unref();
  }

  /** Subscriptions held now, on every socket. */
  get size(): number {
    return this.held;
  }

  /** Counts a subscription in from the moment it is accepted (several can be accepted before the first one runs). */
  reserve(): void {
    this.held += 1;
  }

  /** Runs a reserved subscription: graphql-ws gets an iterator that yields nothing but a TOO_LARGE at the end, since events go straight to the socket. */
  async subscribe(args: ExecutionArgs, subscriber: Subscriber): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    for (;;) {
      let group = this.groups.get(subscriber.key);
      if (!group) {
        group = { key: subscriber.key, owner: subscriber.owner, args, members: new Set(), ready: Promise.resolve(null as never), closed: false };
        group.ready = this.open(group);
        this.groups.set(subscriber.key, group);
      }
      const source = await group.ready;
      if (!isIterator(source)) {
        this.held -= 1;
        return source;
      }
      // A group whose last subscriber left while this one waited is gone: the next turn opens a new one.
      if (!group.closed) return this.join(group, subscriber);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const group of [...this.groups.values()]) this.closeGroup(group, null);
  }

  private async open(group: Group): Promise<AsyncIterator<unknown> | ExecutionResult> {
    const stream = await createSourceEventStream(group.args).catch((error: unknown) => ({ errors: [error as GraphQLError] }));
    if (!(Symbol.asyncIterator in stream)) {
      this.groups.delete(group.key);
      group.closed = true;
      return stream;
    }
    const source = stream[Symbol.asyncIterator]();
    void (async () => {
      try {
        for (let change = await source.next(); !change.done && !group.closed; change = await source.next()) this.enqueue(group, change.value);
      } catch (error) {
        this.logger.warn({ err: error }, 'a subscription source failed');
      }
      this.closeGroup(group, null);
    })();
    return source;
  }

  private join(group: Group, subscriber: Subscriber): AsyncIterableIterator<ExecutionResult> {
    let last: ExecutionResult | null | undefined;
    let wake: (() => void) | null = null;
    const member: Member = {
      subscriber,
      group,
      end: (result) => {
        if (last !== undefined) return;
        last = result;
        this.leave(member);
        wake?.();
      },
    };
    group.members.add(member);
    // Not an async generator: its return() would wait for the next event before the subscription let go of its group.
    const iterator: AsyncIterableIterator<ExecutionResult> = {
      [Symbol.asyncIterator]: () => iterator,
      next: async () => {
        if (last === undefined) await new Promise<void>((resolve) => { wake = resolve; });
        const result = last;
        last = null;
        return result ? { done: false, value: result } : { done: true, value: undefined };
      },
      return: async () => {
        member.end(null);
        return { done: true, value: undefined };
      },
      throw: async (error: unknown) => {
        member.end(null);
        throw error;
      },
    };
    return iterator;
  }

  private leave(member: Member): void {
    const { group } = member;
    if (!group.members.delete(member)) return;
    this.held -= 1;
    if (group.members.size === 0) this.closeGroup(group, null);
  }

  /** Ends every subscription of the group (with `last`, if given) and lets go of its pub/sub listener. */
  private closeGroup(group: Group, last: ExecutionResult | null): void {
    if (this.groups.get(group.key) === group) this.groups.delete(group.key);
    for (const member of [...group.members]) member.end(last);
    if (group.closed) return;
    group.closed = true;
    void group.ready.then((source) => { if (isIterator(source)) return source.return?.(); }).catch(() => undefined);
  }

  private shareOf(owner: string): Share {
    let share = this.shares.get(owner);
    if (!share) this.shares.set(owner, (share = { queue: [], running: 0, bytes: 0 }));
    return share;
  }

  private enqueue(group: Group, payload: unknown): void {
    this.shareOf(group.owner).queue.push({ group, payload, queuedAt: Date.now() });
    this.schedule();
  }

  /** Drains on the next turn of the event loop, so a write's publish returns at once and /healthz is answered in between. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  private drain(): void {
    const now = Date.now();
    this.expire(now);
    const { limits } = this;
    for (let started = true; started;) {
      started = false;
      for (const [owner, share] of this.shares) {
        if (this.running >= limits.fanOutExecutions || this.bytes >= limits.fanOutBytes) return;
        if (!share.queue.length) {
          if (share.running === 0 && share.bytes === 0) this.shares.delete(owner);
          continue;
        }
        if (share.running >= limits.fanOutExecutionsPerToken || share.bytes >= limits.fanOutBytesPerToken) continue;
        // A change past its wait is expire()'s to end (a few a turn), never to run.
        if (now - share.queue[0].queuedAt > limits.fanOutWaitMs) continue;
        const next = share.queue.shift()!;
        if (next.group.closed) {
          started = true;
          break;
        }
        this.shares.delete(owner);
        this.shares.set(owner, share);
        void this.run(next, share);
        started = true;
        break;
      }
    }
  }

  /**
   * Changes that waited their turn past the limit end their subscriptions: those cannot be kept up with.
   * A few groups a turn: a flood's changes all expire at once, and ending each subscription sends it a message.
   */
  private expire(now: number): void {
    let ended = 0;
    // One error for the turn: each is the same words, and making one captures a stack.
    let told: ExecutionResult | undefined;
    for (const share of this.shares.values()) {
      while (share.queue.length && now - share.queue[0].queuedAt > this.limits.fanOutWaitMs) {
        if (ended >= GROUPS_ENDED_PER_TURN) return this.schedule();
        const { group } = share.queue.shift()!;
        if (group.closed) continue;
        this.closeGroup(group, (told ??= { data: null, errors: [cannotKeepUp(this.limits.fanOutWaitMs)] }));
        ended += 1;
      }
    }
  }

  private async run({ group, payload }: Pending, share: Share): Promise<void> {
    share.running += 1;
    this.running += 1;
    try {
      const budget = runningBudget();
      const base = group.args.contextValue as Context;
      const contextValue: Context = { ...base, loaders: createLoaders(this.services, budget), budget };
      const result = await execute({ ...group.args, rootValue: payload, contextValue });
      if (group.closed) return;
      const answer = this.show(budget.exceeded ? { data: null, errors: [budget.exceeded] } : result);
      await this.send(group, share, Buffer.from(JSON.stringify(answer)));
    } catch (error) {
      this.logger.error({ err: error }, 'could not build a subscription event');
    } finally {
      share.running -= 1;
      this.running -= 1;
      this.schedule();
    }
  }

  /**
   * Writes one built event to every subscriber of the group, as the graphql-ws
   * "next" message: its head and tail per subscriber, the payload the one
   * shared buffer. Its bytes count against the budgets until every socket has
   * written them.
   */
  private async send(group: Group, share: Share, payload: Buffer): Promise<void> {
    const size = payload.length;
    share.bytes += size;
    this.bytes += size;
    let outstanding = 1;
    const written = () => {
      if (--outstanding > 0) return;
      share.bytes -= size;
      this.bytes -= size;
      this.schedule();
    };
    let thisTurn = 0;
    for (const member of [...group.members]) {
      const { socket, id } = member.subscriber;
      if (!group.members.has(member) || socket.readyState !== WebSocket.OPEN) continue;
      outstanding += 1;
      const times = this.unwritten.get(socket) ?? [];
      if (!times.length) this.unwritten.set(socket, times);
      times.push(Date.now());
      socket.send(`{"id":${JSON.stringify(id)},"type":"next","payload":`, { fin: false });
      socket.send(payload, { fin: false });
      socket.send('}', { fin: true }, () => {
        times.shift();
        if (!times.length && this.unwritten.get(socket) === times) this.unwritten.delete(socket);
        written();
      });
      // Handing a socket its bytes copies them into the kernel: a few MB a turn, so that other requests are answered in between.
      thisTurn += size;
      if (thisTurn >= BYTES_PER_TURN) {
        thisTurn = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    written();
  }

  /** Queued changes past their wait end their subscriptions; a socket with an event unwritten past SLOW_SOCKET_MS is closed. */
  private sweep(): void {
    const now = Date.now();
    this.expire(now);
    for (const [socket, times] of this.unwritten) {
      if (!times.length || now - times[0] <= SLOW_SOCKET_MS) continue;
      this.unwritten.delete(socket);
      this.logger.info({ unwritten: times.length }, 'a subscription socket did not read its events in time: closed');
      socket.close(TOO_MUCH_UNREAD, SLOW_SOCKET);
      // A reader that reads nothing would not read the close frame either.
      setTimeout(() => socket.terminate(), 1_000).unref();
    }
  }
}

function isIterator(value: AsyncIterator<unknown> | ExecutionResult): value is AsyncIterator<unknown> {
  return typeof (value as AsyncIterator<unknown>).next === 'function';
}
