import type { Server } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { OriginPolicy } from '../../http/origin-policy.js';
import type { SubscriptionLimits } from '../../http/subscription-limits.js';
import type { Services } from '../../services/index.js';
import type { ChangeFeed } from '../../services/kernel/changes/change-feed.js';
import { bridgeChanges } from './change-bridge.js';
import type { ChangePubSub } from './topics.js';
import { attachSubscriptions, type SocketAuth } from './ws-server.js';

/** Live updates: the change feed into the topics, and the topics out over WebSocket. Returns what stops both. */
export function serveLiveChanges(
  options: { httpServer: Server; schema: GraphQLSchema; pubSub: ChangePubSub; feed: ChangeFeed; services: Services; auth: SocketAuth; origins: OriginPolicy; limits: SubscriptionLimits; logger: Logger },
): () => Promise<void> {
  const unbridge = bridgeChanges(options.feed, options.pubSub, options.services, options.logger);
  const closeSockets = attachSubscriptions(options);
  return async () => {
    unbridge();
    await closeSockets();
  };
}
