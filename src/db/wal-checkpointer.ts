import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { synchronousPragma, type SqliteSynchronous } from './data-source.js';

/** How often the checkpointer copies what the WAL holds into the database file. */
const CHECKPOINT_EVERY_MS = 100;

/** The longest the worker waits for a reader or a writer outside this process while writes are held. */
const RESTART_WAIT_MS = 100;

/**
 * The worker's whole program (CommonJS, given as text so that it runs the
 * same from src under the tests and from dist): its own connection to the
 * file, a PASSIVE checkpoint every `everyMs`, and one last one on `stop`;
 * the first checkpoint that fails ends it, saying why.
 * A PASSIVE checkpoint never waits for a lock and never holds one a writer
 * needs: the server's writer goes on appending to the WAL while it runs.
 * So under writes that never pause, it never finds the WAL wholly copied
 * between two commits, and the WAL, which only starts over then, would grow
 * without end (1.35 GB in 20 s of updateItem at --scale large). When a
 * checkpoint has copied a WAL of `limitBytes` or more, the worker asks for
 * writes to be held; the main thread answers with `restart` once it holds
 * the write lock, ahead of the writes queued for it (no transaction of its
 * own is open or can begin). A RESTART checkpoint then copies the frames
 * written since and waits for readers to leave the WAL (at most `waitMs`),
 * so that the writer's next commit writes from its start again. A WAL
 * already readied by a RESTART is not asked for again before it has started
 * over.
 */
const WORKER = `
const fs = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const Sqlite = require(workerData.driver);
const db = new Sqlite(workerData.file, { fileMustExist: true, timeout: workerData.waitMs });
db.pragma('synchronous = ' + workerData.synchronous);
// The database file itself, to sync what the checkpoints copy into it (tick, below).
const file = fs.openSync(workerData.file, 'r');
// A WAL frame is a page and its 24-byte header.
const restartAt = Math.max(1, Math.floor(workerData.limitBytes / (db.pragma('page_size', { simple: true }) + 24)));
let timer = null;
const stop = () => {
  clearInterval(timer);
  try { db.close(); } catch {}
  try { fs.closeSync(file); } catch {}
  parentPort.close();
};
// The first failure ends the worker: the writer goes back to checkpointing for itself.
const fail = (error) => {
  parentPort.postMessage({ failed: [error && error.code, error && error.message].filter(Boolean).join(': ') || 'unknown error' });
  stop();
};
const checkpoint = (mode) => {
  try {
    return db.pragma('wal_checkpoint(' + mode + ')')[0];
  } catch (error) {
    fail(error);
    return null;
  }
};
// A restart asked for and not yet answered; the WAL's length when a RESTART last readied it to start over.
let requested = false;
let readiedAt = -1;
// How far into the WAL the database file was last synced for.
let synced = 0;
const tick = () => {
  // Waiting for the answer, which comes ahead of any write queued: no checkpoint is left running when it does.
  if (requested) return;
  const done = checkpoint('PASSIVE');
  if (!done) return;
  // SQLite syncs the database file after a checkpoint only if no commit came while it copied, which under writes
  // that never pause is never: what it copied would pile up unsynced for the RESTART to sync, with writes held
  // (65-80 ms with a 64 MiB WAL at --scale large). So it is synced here, beside the writer, as it goes.
  if (done.checkpointed !== synced) {
    try {
      fs.fsyncSync(file);
    } catch (error) {
      fail(error);
      return;
    }
    synced = done.checkpointed;
  }
  if (done.busy !== 0 || done.log < restartAt || done.log === readiedAt) return;
  if (done.checkpointed === done.log) {
    requested = true;
    parentPort.postMessage({ restart: true });
  } else {
    // Copied only up to what a reader still reads: its snapshot holds the WAL until it ends.
    parentPort.postMessage({ blocked: true });
  }
};
timer = setInterval(tick, workerData.everyMs);
parentPort.on('message', (message) => {
  if (message === 'restart') {
    const done = checkpoint('RESTART');
    if (!done) return;
    requested = false;
    if (done.busy === 0) readiedAt = done.log;
    parentPort.postMessage({ restarted: done.busy === 0 });
  } else if (message === 'stop') {
    if (checkpoint('PASSIVE')) stop();
  }
});
`;

/**
 * Checkpoints a SQLite file's WAL from a worker thread, for a writer opened
 * with `checkpointsElsewhere` (wal_autocheckpoint = 0).
 *
 * better-sqlite3 runs every statement on the event loop's thread, and
 * SQLite's own automatic checkpoint runs inside the COMMIT that finds the
 * WAL past 1,000 pages: copying those pages into the file and syncing it
 * took 15-17 ms at --scale large, every 150 ms or so under updateItem, and
 * every request waiting on the loop waited with it (updateItem's p99 at
 * 600 req/s offered: 18 ms with it, 5 ms without). Here the copy and the
 * syncs happen beside the loop. The WAL starts over from its beginning
 * once a checkpoint has caught up: by itself at the writer's next commit
 * when writes pause, and with writes held for a RESTART checkpoint (a few
 * frames to copy) when they do not.
 */
export class WalCheckpointer {
  private stopping = false;
  private failed = false;
  private exited = false;
  /** Ends the writes held for a restart, when the worker answers or ends. */
  private restarted: (() => void) | null = null;
  private lastBlockedNotice = Number.NEGATIVE_INFINITY;
  private readonly stopped: Promise<void>;

  private constructor(
    private readonly worker: Worker,
    private readonly holdWrites: (work: () => Promise<void>) => Promise<void>,
    onFailure: (reason: string) => void,
    private readonly onBlocked: (() => void) | undefined,
  ) {
    // Told once, with the first reason: a worker that cannot open the file both errs and exits.
    const fail = (reason: string) => {
      if (this.failed || this.stopping) return;
      this.failed = true;
      onFailure(reason);
    };
    this.stopped = new Promise<void>((resolve) => {
      worker.on('message', (message: { failed?: string; restart?: boolean; restarted?: boolean; blocked?: boolean }) => {
        if (message.failed) fail(message.failed);
        if (message.restart) void this.restart();
        if (message.blocked || message.restarted === false) this.blocked();
        if (message.restarted !== undefined) this.endRestart();
      });
      worker.on('error', (error) => fail(error.message));
      worker.on('exit', () => {
        this.exited = true;
        this.endRestart();
        fail('the checkpoint worker ended');
        resolve();
      });
    });
  }

  /**
   * Starts checkpointing `file`. `onFailure` hears, once, why checkpoints
   * stopped (the first failed checkpoint's SQLite code and message, or a
   * worker that ended unasked); the caller should then let the writer
   * checkpoint for itself again.
   */
  static start({ file, synchronous, limitBytes, holdWrites, onFailure, onBlocked }: {
    file: string;
    synchronous: SqliteSynchronous;
    /** How large the WAL may grow under writes that never pause before they are held for it to start over. */
    limitBytes: number;
    /** Runs its work ahead of the writes waiting, while no write transaction of this process is open or can begin. */
    holdWrites: (work: () => Promise<void>) => Promise<void>;
    onFailure: (reason: string) => void;
    /**
     * Hears, at most once a minute, that the WAL is past its limit and cannot start over: another connection (a
     * read or write by another process) holds on to it. It grows until that ends.
     */
    onBlocked?: () => void;
  }): WalCheckpointer {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: {
        driver, file, synchronous: synchronousPragma(synchronous),
        everyMs: CHECKPOINT_EVERY_MS, limitBytes, waitMs: RESTART_WAIT_MS,
      },
    });
    // The worker never keeps the process alive on its own: a server that stops closes it first.
    worker.unref();
    return new WalCheckpointer(worker, holdWrites, onFailure, onBlocked);
  }

  /** The worker asked: writes held while it starts the WAL over, until it answers (or ends). */
  private restart(): Promise<void> {
    return this.holdWrites(() => new Promise<void>((resolve) => {
      if (this.exited || this.stopping) return resolve();
      this.restarted = resolve;
      this.worker.postMessage('restart');
    }));
  }

  private blocked(): void {
    const now = performance.now();
    if (now - this.lastBlockedNotice < 60_000) return;
    this.lastBlockedNotice = now;
    this.onBlocked?.();
  }

  private endRestart(): void {
    this.restarted?.();
    this.restarted = null;
  }

  /** One last checkpoint, then the worker's connection closes. */
  async stop(): Promise<void> {
    this.stopping = true;
    // Held open until the last checkpoint is done, even by a process with nothing else left to wait for.
    this.worker.ref();
    this.worker.postMessage('stop');
    await this.stopped;
  }
}
