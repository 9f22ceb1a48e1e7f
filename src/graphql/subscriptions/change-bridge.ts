import type { Logger } from 'pino';
import { MemoryEntity } from '../../db/entities/index.js';
import type { Services } from '../../services/index.js';
import type { ChangeFeed } from '../../services/kernel/changes/change-feed.js';
import type { ChangeEvent } from '../../services/kernel/changes/change-events.js';
import { selectRows } from '../../services/kernel/statements.js';
import { TOPIC, type ChangePubSub } from './topics.js';

/**
 * Feeds the subscription topics from the change feed. What a filter needs
 * (a memory's domain, a session's parent) is read here once per change, so
 * a hundred open dashboards cost one lookup, not a hundred; a task's change
 * carries its kind and domain from the writer, and costs none. A change no
 * open subscription could hear is not looked up.
 */
export function bridgeChanges(feed: ChangeFeed, pubSub: ChangePubSub, services: Services, logger: Logger): () => void {
  const publish = async (event: ChangeEvent) => {
    switch (event.entity) {
      case 'TASK':
      case 'NOTE': {
        if (!pubSub.listening(TOPIC.MEMORY) && (event.entity === 'NOTE' || !pubSub.listening(TOPIC.TASK))) return;
        // The writer says the task's kind and domain; otherwise (a note) they are read back once.
        const row = event.memory
          ?? await services.db.reader.findOne(MemoryEntity, { where: { id: Number(event.id) }, select: { id: true, kind: true, domain: true } });
        if (!row) return;
        const { memory: _, ...rest } = event;
        const change = { ...rest, kind: row.kind, domain: row.domain };
        if (row.kind === 'TASK') pubSub.publish(TOPIC.TASK, event.id, change);
        pubSub.publish(TOPIC.MEMORY, change);
        return;
      }
      case 'SESSION': {
        if (!pubSub.listening(TOPIC.SESSION)) return;
        // Every session change (each reminder, each plan write's) comes through here: a fixed statement, not TypeORM's findOne.
        const [row] = await selectRows(services.db.reader, SESSION_PARENT, [event.id]);
        pubSub.publish(TOPIC.SESSION, { ...event, parentId: (row?.[0] as string | null | undefined) ?? null });
        return;
      }
      case 'SETTINGS':
        pubSub.publish(TOPIC.SETTINGS, event);
        return;
      default: {
        const unknown: never = event.entity;
        logger.warn({ entity: unknown }, 'change of an unknown kind');
      }
    }
  };
  // Only while a subscription is open does the feed read the changes for this bridge (change-feed.ts).
  return feed.subscribe((event) => {
    publish(event).catch((error) => logger.warn({ err: error, event }, 'could not publish a change to subscribers'));
  }, () => pubSub.anyListening());
}

const SESSION_PARENT = `SELECT "parentId" FROM "sessions" WHERE "id" = ?`;
