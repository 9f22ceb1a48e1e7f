import { isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { getMetadataStorage } from 'type-graphql';

type Method = (...params: unknown[]) => unknown;
type Param = { kind: string; index: number; propertyName?: string; getType?: () => unknown };

/**
 * Field resolvers called straight: for a @FieldResolver whose parameters are
 * only @Root, @Ctx and @Info (the per-row ones: refs, numbers, rendered text,
 * claims), the schema's resolve calls the method on the resolver's one
 * instance, instead of type-graphql's wrapper, which on every call looks the
 * instance up, sorts and maps the parameter list and runs the (empty)
 * middleware chain. Measured on the dashboard read (tens of such calls per
 * row): type-graphql was 8 % of its profile. A root that is not an instance
 * of the type is made one first, as type-graphql does. Fields with @Arg or
 * @Args, middlewares or roles keep type-graphql's resolve. Run right after
 * buildSchema, before anything else wraps resolve.
 */
export function directFieldResolvers(schema: GraphQLSchema, resolverClasses: readonly Function[]): void {
  const storage = getMetadataStorage();
  const instances = new Map<Function, Record<string, Method>>();
  for (const meta of storage.fieldResolvers) {
    if (meta.kind !== 'external' || !resolverClasses.includes(meta.target)) continue;
    if (meta.middlewares?.length || meta.roles?.length) continue;
    const params = [...((meta.params ?? []) as Param[])].sort((a, b) => a.index - b.index);
    if (!params.every((param) => ['root', 'context', 'info'].includes(param.kind) && !param.propertyName)) continue;
    const objectClass = meta.getObjectType?.();
    const typeName = storage.objectTypes.find((type) => type.target === objectClass)?.name;
    const type = typeName ? schema.getType(typeName) : undefined;
    const field = isObjectType(type) ? type.getFields()[meta.schemaName] : undefined;
    if (!field || !objectClass) continue;
    let instance = instances.get(meta.target);
    if (!instance) instances.set(meta.target, (instance = new (meta.target as new () => Record<string, Method>)()));
    field.resolve = callDirectly(instance, meta.methodName, params.map((param) => param.kind), objectClass as new () => object);
  }
}

function callDirectly(instance: Record<string, Method>, methodName: string, kinds: readonly string[], Root: new () => object): GraphQLFieldResolver<unknown, unknown> {
  const method = instance[methodName];
  const rootOf = (root: unknown) => (root === null || root === undefined || root instanceof Root ? root : Object.assign(new Root(), root));
  // The two shapes every per-row resolver has, without building an argument list per call.
  if (kinds.length === 2 && kinds[0] === 'root' && kinds[1] === 'context') return (root, _args, context) => method.call(instance, rootOf(root), context);
  if (kinds.length === 1 && kinds[0] === 'root') return (root) => method.call(instance, rootOf(root));
  return (root, _args, context, info) => method.apply(instance, kinds.map((kind) => (kind === 'root' ? rootOf(root) : kind === 'context' ? context : info)));
}
