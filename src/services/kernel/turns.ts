/**
 * Turns of the event loop shared fairly between requests. A big read or a
 * big answer is done in slices: after each slice its request waits here for
 * its turn, and turns are handed out one per turn of the event loop, first
 * come first served. Between two slices the loop polls for I/O, so a small
 * request (GET /healthz, a write) that arrived meanwhile is read and answered
 * after at most one slice, not after every slice every other request had
 * ready (16 heavy reads each waiting with setImmediate alone took their 16
 * slices in one turn, and /healthz waited for all of them).
 */
const waiting: (() => void)[] = [];
let head = 0;
let scheduled = false;

function handOne(): void {
  scheduled = false;
  const next = waiting[head];
  if (next === undefined) return;
  waiting[head++] = undefined as unknown as () => void;
  if (head > 1024 && head * 2 > waiting.length) {
    waiting.splice(0, head);
    head = 0;
  }
  // The next one gets its turn in the next turn of the loop: an immediate set while immediates run waits for it.
  if (head < waiting.length) schedule();
  next();
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(handOne);
}

/** Resolves at this caller's turn: after every caller that asked before it has had its own, one per turn of the event loop. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    schedule();
  });
}
