import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { synchronousPragma, type SqliteSynchronous } from './data-source.js';

/** How often the checkpointer copies what the WAL holds into the database file. */
const CHECKPOINT_EVERY_MS = 100;

/**
 * The worker's whole program (CommonJS, given as text so that it runs the
 * same from src under the tests and from dist): its own connection to the
 * file, a PASSIVE checkpoint every `everyMs`, and one last one on `stop`;
 * the first checkpoint that fails ends it, saying why.
 * A PASSIVE checkpoint never waits for a lock and never holds one a writer
 * needs: the server's writer goes on appending to the WAL while it runs.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Sqlite = require(workerData.driver);
const db = new Sqlite(workerData.file, { fileMustExist: true });
db.pragma('synchronous = ' + workerData.synchronous);
let timer = null;
const stop = () => {
  clearInterval(timer);
  try { db.close(); } catch {}
  parentPort.close();
};
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    return true;
  } catch (error) {
    // The first failure ends the worker: the writer goes back to checkpointing for itself.
    parentPort.postMessage({ failed: [error && error.code, error && error.message].filter(Boolean).join(': ') || 'unknown error' });
    stop();
    return false;
  }
};
timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', () => {
  if (checkpoint()) stop();
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
 * syncs happen beside the loop; the writer only restarts the WAL from its
 * start once a checkpoint has caught up, as SQLite does anyway.
 */
export class WalCheckpointer {
  private stopping = false;
  private failed = false;
  private readonly stopped: Promise<void>;

  private constructor(private readonly worker: Worker, onFailure: (reason: string) => void) {
    // Told once, with the first reason: a worker that cannot open the file both errs and exits.
    const fail = (reason: string) => {
      if (this.failed || this.stopping) return;
      this.failed = true;
      onFailure(reason);
    };
    this.stopped = new Promise<void>((resolve) => {
      worker.on('message', (message: { failed?: string }) => {
        if (message.failed) fail(message.failed);
      });
      worker.on('error', (error) => fail(error.message));
      worker.on('exit', () => {
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
  static start(file: string, synchronous: SqliteSynchronous, onFailure: (reason: string) => void): WalCheckpointer {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { driver, file, synchronous: synchronousPragma(synchronous), everyMs: CHECKPOINT_EVERY_MS },
    });
    // The worker never keeps the process alive on its own: a server that stops closes it first.
    worker.unref();
    return new WalCheckpointer(worker, onFailure);
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
