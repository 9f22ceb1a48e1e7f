import { Ctx, Query, Resolver, registerEnumType } from 'type-graphql';
import type { Context } from '../context.js';

enum AccessEnum {
  WRITE = 'WRITE',
  READ = 'READ',
}
registerEnumType(AccessEnum, {
  name: 'Access',
  description: 'What the bearer token allows.',
  valuesConfig: { WRITE: { description: 'Read and change anything.' }, READ: { description: 'Read only: every mutation is refused (FORBIDDEN).' } },
});

/** Lets a client (the dashboard) show edit controls only to callers who may use them. */
@Resolver()
export class AccessResolver {
  @Query(() => AccessEnum, { description: 'What the caller\'s bearer token allows (WRITE when authentication is off).' })
  access(@Ctx() ctx: Context): AccessEnum {
    return ctx.access === 'read' ? AccessEnum.READ : AccessEnum.WRITE;
  }
}
