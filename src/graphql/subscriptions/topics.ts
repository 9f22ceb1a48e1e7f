import { setMaxListeners } from 'node:events';
import { createPubSub, type PubSub } from '@graphql-yoga/subscription';
import type { ChangeEvent } from '../../services/kernel/changes/change-events.js';

/** A change to a task or note, with where it lives (looked up once per change, not per subscriber). */
export interface MemoryChangeEvent extends ChangeEvent {
  kind: 'TASK' | 'NOTE';
  domain: string | null;
}

/** A change to a session, with its parent (so a parent's view hears its helpers). */
export interface SessionChangeEvent extends ChangeEvent {
  parentId: string | null;
}

/**
 * The subscription topics and what each carries: the publisher (the change
 * bridge) and the @Subscription resolvers agree on these types, so a topic
 * cannot be published with the wrong payload.
 */
// A type, not an interface: createPubSub needs its keys indexable, and an index signature would let any topic name through.
type ChangeTopics = {
  /** Routed by task id: a subscriber hears only its task. */
  TASK_CHANGED: [taskId: string, change: MemoryChangeEvent];
  MEMORY_CHANGED: [change: MemoryChangeEvent];
  SESSION_CHANGED: [change: SessionChangeEvent];
  SETTINGS_CHANGED: [change: ChangeEvent];
};

export const TOPIC = {
  TASK: 'TASK_CHANGED',
  MEMORY: 'MEMORY_CHANGED',
  SESSION: 'SESSION_CHANGED',
  SETTINGS: 'SETTINGS_CHANGED',
} as const satisfies Record<string, keyof ChangeTopics>;

export type ChangeTopic = keyof ChangeTopics;

export type ChangePubSub = PubSub<ChangeTopics> & {
  /** Whether a subscription on the topic (any task's, for TASK_CHANGED) is open now: the bridge reads nothing for none. */
  listening(topic: ChangeTopic): boolean;
  /** Whether any subscription is open, on any topic. */
  anyListening(): boolean;
};

/**
 * The pub/sub's event target, counting its listeners by topic: each open
 * subscription is one (@graphql-yoga/subscription adds it when the
 * subscription starts and removes it when it ends). A task's topic is
 * TASK_CHANGED:<id>, counted under TASK_CHANGED.
 */
class CountedTarget extends EventTarget {
  private readonly listeners = new Map<string, Set<unknown>>();

  override addEventListener(...[type, listener, options]: Parameters<EventTarget['addEventListener']>): void {
    if (listener) {
      const topic = topicOf(type);
      const open = this.listeners.get(topic) ?? new Set();
      this.listeners.set(topic, open.add(listener));
    }
    super.addEventListener(type, listener, options);
  }

  override removeEventListener(...[type, listener, options]: Parameters<EventTarget['removeEventListener']>): void {
    const topic = topicOf(type);
    const open = this.listeners.get(topic);
    if (open?.delete(listener) && open.size === 0) this.listeners.delete(topic);
    super.removeEventListener(type, listener, options);
  }

  listening(topic: string): boolean {
    return this.listeners.has(topic);
  }

  anyListening(): boolean {
    return this.listeners.size > 0;
  }
}

const topicOf = (type: string) => {
  const routed = type.indexOf(':');
  return routed === -1 ? type : type.slice(0, routed);
};

/**
 * Every subscription on a topic is one listener, and many dashboards on one
 * task is normal use, not a leak: Node's warning past 10 listeners is off.
 * What bounds the listeners is the socket and subscription caps (ws-server.ts).
 */
export function createChangePubSub(): ChangePubSub {
  const eventTarget = new CountedTarget();
  setMaxListeners(Infinity, eventTarget);
  return Object.assign(createPubSub<ChangeTopics>({ eventTarget }), {
    listening: (topic: ChangeTopic) => eventTarget.listening(topic),
    anyListening: () => eventTarget.anyListening(),
  });
}
