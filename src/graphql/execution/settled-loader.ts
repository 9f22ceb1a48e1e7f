import DataLoader from 'dataloader';

/** A value, or the promise of one: what a field resolver may return. */
export type Maybe<T> = T | Promise<T>;

/**
 * `then` applied to a value now, or once its promise settles: a resolver
 * whose inputs a request already holds answers without a promise (graphql-jit
 * and graphql-js take a plain value as resolved, and save a promise and a
 * microtask per field per row).
 */
export function after<T, U>(value: Maybe<T>, then: (value: T) => Maybe<U>): Maybe<U> {
  return value instanceof Promise ? value.then(then) : then(value);
}

/** `then` applied to two values, each now or once settled (started together, as Promise.all would). */
export function afterBoth<A, B, U>(a: Maybe<A>, b: Maybe<B>, then: (a: A, b: B) => Maybe<U>): Maybe<U> {
  if (a instanceof Promise || b instanceof Promise) return Promise.all([a, b]).then(([x, y]) => then(x, y));
  return then(a, b);
}

/**
 * A DataLoader that also keeps what it has answered, so a field asking again
 * for a key the request already read gets the value itself (`loadNow`), not a
 * new promise: a cache hit of DataLoader's is a fresh promise resolved with
 * the batch, which for a list's rows is one promise and a few microtasks per
 * field per row. Cleared with the loader (clearAll after a mutation), and
 * primed values count as answered unless a load of that key was already
 * under way (DataLoader keeps the first). Keys are compared as they are (no
 * cacheKeyFn).
 */
export class SettledLoader<K, V> extends DataLoader<K, V> {
  private readonly settled = new Map<K, V>();
  /** The keys whose load is under way or answered, each with a mark of that load (a cleared key's late answer is dropped). */
  private readonly asked = new Map<K, object>();

  /** The value for `key` now when this request has read it, else the promise of it. */
  loadNow(key: K): Maybe<V> {
    if (this.settled.has(key)) return this.settled.get(key)!;
    return this.load(key);
  }

  override load(key: K): Promise<V> {
    if (this.asked.has(key)) return super.load(key);
    const mark = {};
    this.asked.set(key, mark);
    return super.load(key).then((value) => {
      if (this.asked.get(key) === mark) this.settled.set(key, value);
      return value;
    });
  }

  override prime(key: K, value: V | PromiseLike<V> | Error): this {
    if (!this.asked.has(key) && !this.settled.has(key) && !(value instanceof Error) && !isPromiseLike(value)) this.settled.set(key, value);
    return super.prime(key, value);
  }

  override clear(key: K): this {
    this.settled.delete(key);
    this.asked.delete(key);
    return super.clear(key);
  }

  override clearAll(): this {
    this.settled.clear();
    this.asked.clear();
    return super.clearAll();
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
