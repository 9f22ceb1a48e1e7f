import { Component, h, type FunctionComponent } from 'preact';

/**
 * A component that renders again only when `same` says its props changed
 * (preact/compat's memo without compat: compat's hook runs on every element
 * the page creates, which a live task paid on every change).
 */
export function memo<P extends object>(render: FunctionComponent<P>, same: (before: P, after: P) => boolean): FunctionComponent<P> {
  class Memo extends Component<P> {
    shouldComponentUpdate(next: P): boolean {
      return !same(this.props as P, next);
    }
    render() {
      return h(render, this.props as P);
    }
  }
  return Memo as unknown as FunctionComponent<P>;
}

/** Shallow equality of two props objects: the same keys with the same values. */
export function sameProps<P extends object>(before: P, after: P): boolean {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  for (const key in a) if (a[key] !== b[key]) return false;
  for (const key in b) if (!(key in a)) return false;
  return true;
}
