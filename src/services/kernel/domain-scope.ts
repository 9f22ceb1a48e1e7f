/**
 * "This domain and below" as a range of the domain column, so an index on it
 * answers: the domain itself, or a path that starts with it and a '/'.
 * Every such path sorts in [d + '/', d + '0'), '0' being the character after
 * '/' (byte order; PostgreSQL's column is COLLATE "C"), and nothing else
 * does: "acme/checkoutx" and "acme/checkout-v2" are outside the scope of
 * "acme/checkout".
 *
 * Written as one range [d, d + '0') narrowed by the OR, because a planner
 * uses a single range after the equality columns before it in an index
 * (open tasks: state, then domain) where it would not combine two ranges;
 * the few siblings inside it ("acme/checkout-v2") are filtered out.
 *
 * `bind` takes each value in the order it appears in the SQL and returns its
 * placeholder (`?`, `$n` or a named `:param`).
 */
export function scopeCondition(column: string, domain: string, bind: (value: string) => string): string {
  const lowest = bind(domain);
  const beyond = bind(`${domain}0`);
  const exact = bind(domain);
  const below = bind(`${domain}/`);
  return `(${column} >= ${lowest} AND ${column} < ${beyond} AND (${column} = ${exact} OR ${column} >= ${below}))`;
}
