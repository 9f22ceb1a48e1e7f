/**
 * How big one answer may grow. Claude Code refuses a tool answer over 25,000
 * tokens (about 100 KB), and a connection with structured output carries a
 * page three times over (the text, its copy in the `answer` field, and the
 * same facts as data), so a page of any listing is cut once its text would
 * pass this many bytes, and says how to read the rest. An entry is never split: the longest one (a step with a
 * 20,000-character validation) still fits.
 */
export const PAGE_BUDGET_BYTES = 30_000;

/**
 * How many of `lines`, from the first, fit one page: at most `maxCount`, and
 * no more than fit `budget` bytes together (one a line, with its newline),
 * but always at least one when there is any, so paging always moves on.
 */
export function fittingCount(lines: readonly string[], { budget = PAGE_BUDGET_BYTES, maxCount = Infinity }: { budget?: number; maxCount?: number } = {}): number {
  let used = 0;
  let count = 0;
  for (const line of lines) {
    if (count >= maxCount) break;
    used += Buffer.byteLength(line) + 1;
    if (count > 0 && used > budget) break;
    count += 1;
  }
  return count;
}
