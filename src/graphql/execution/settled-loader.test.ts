import { describe, expect, it } from 'vitest';
import { SettledLoader, after } from './settled-loader.js';

/** A loader over `rows` that counts its batches. */
function loaderOver(rows: Map<number, string>) {
  const batches: number[][] = [];
  const loader = new SettledLoader(async (keys: readonly number[]) => {
    batches.push([...keys]);
    return keys.map((key) => rows.get(key) ?? 'none');
  });
  return { loader, batches };
}

describe('SettledLoader', () => {
  it('answers a key it has read with the value itself, and one it has not with a promise, batched', async () => {
    const { loader, batches } = loaderOver(new Map([[1, 'one'], [2, 'two']]));
    const first = loader.loadNow(1);
    const second = loader.loadNow(2);
    expect(first).toBeInstanceOf(Promise);
    expect(await Promise.all([first, second])).toEqual(['one', 'two']);
    expect(loader.loadNow(1)).toBe('one');
    expect(after(loader.loadNow(2), (value) => value.toUpperCase())).toBe('TWO');
    expect(batches).toEqual([[1, 2]]);
  });

  it('reads again after clearAll (a mutation ran), and forgets a cleared key', async () => {
    const rows = new Map([[1, 'one']]);
    const { loader, batches } = loaderOver(rows);
    await loader.load(1);
    rows.set(1, 'changed');
    loader.clearAll();
    expect(await loader.loadNow(1)).toBe('changed');
    rows.set(1, 'again');
    loader.clear(1);
    expect(loader.loadNow(1)).toBeInstanceOf(Promise);
    expect(await loader.loadNow(1)).toBe('again');
    expect(batches).toHaveLength(3);
  });

  it('takes a primed value as read, unless a load of that key was under way (DataLoader keeps the first)', async () => {
    const { loader } = loaderOver(new Map([[1, 'loaded'], [2, 'loaded']]));
    loader.prime(1, 'primed');
    expect(loader.loadNow(1)).toBe('primed');
    const pending = loader.load(2);
    loader.prime(2, 'primed');
    expect(await pending).toBe('loaded');
    expect(loader.loadNow(2)).toBe('loaded');
    loader.prime(3, new Error('refused'));
    await expect(loader.loadNow(3)).rejects.toThrow('refused');
  });
});
