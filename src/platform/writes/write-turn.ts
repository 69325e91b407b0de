// Whose turn it is to write the SQLite file: the server's thread (its group commits) or the audit writer's thread
// (groups of views, decision 0017). SQLite lets one connection write at a time and makes the other wait inside
// BEGIN IMMEDIATE, by sleeping in its busy handler: on the server's thread that sleep held every request in flight,
// 20 to 37 ms at a time, each time a change met a group of views being committed (decision 0052). With the turn the
// server's thread waits for its turn as a promise, and only the writer's thread ever sleeps.
//
// The turn is advisory: SQLite's own lock still decides who writes, and a turn not given back within the
// database's busy timeout is taken anyway (a thread that died holding it cannot stop the other one).
// Kept free of other imports: the writer's bundle includes it.

// The cell [HOLDER] says who holds the turn; [WANTED] how many of the server's waits are under way, so the writer's
// thread, which finds its next group queued as soon as it has written one, lets the server go first.
const HOLDER = 0;
const WANTED = 1;
const FREE = 0;
const SERVER = 1;
const WRITER = 2;

/** Atomics.waitAsync: in Node 20 (V8), typed by TypeScript's ES2024 library only, above this project's target. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(cell: Int32Array, index: number, value: number, timeoutMs: number): { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync;

/** As long as SQLite's busy_timeout (sqlite-pragmas.ts): past it, SQLite itself would have given up. */
const GIVE_UP_MS = 5000;

export class WriteTurn {
  private readonly cell: Int32Array;

  /** `buffer`: the turn of another thread (from `buffer` there); a new turn without it. */
  constructor(
    readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(8),
    private readonly giveUpMs = GIVE_UP_MS,
  ) {
    this.cell = new Int32Array(buffer);
  }

  /**
   * The server's thread: resolves once the turn is its own (true), or after the timeout (false: it then writes
   * without it, as before there was one). Never blocks the event loop.
   */
  async takeForServer(): Promise<boolean> {
    const deadline = Date.now() + this.giveUpMs;
    Atomics.add(this.cell, WANTED, 1);
    try {
      for (;;) {
        const holder = Atomics.compareExchange(this.cell, HOLDER, FREE, SERVER);
        if (holder === FREE) return true;
        const left = deadline - Date.now();
        if (left <= 0) return false;
        const wait = waitAsync(this.cell, HOLDER, holder, left);
        if (!wait.async) continue;
        // A wait on shared memory alone does not keep the process alive; the timer does, until it ends.
        const alive = setTimeout(() => undefined, left);
        try {
          await wait.value;
        } finally {
          clearTimeout(alive);
        }
      }
    } finally {
      Atomics.sub(this.cell, WANTED, 1);
      Atomics.notify(this.cell, WANTED);
    }
  }

  /** The writer's thread: blocks (its own thread only) until the turn is its own, or the timeout (false). */
  takeForWriter(): boolean {
    const deadline = Date.now() + this.giveUpMs;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      // The server's thread is waiting: it goes first.
      const wanted = Atomics.load(this.cell, WANTED);
      if (wanted > 0) {
        Atomics.wait(this.cell, WANTED, wanted, left);
        continue;
      }
      const holder = Atomics.compareExchange(this.cell, HOLDER, FREE, WRITER);
      if (holder === FREE) return true;
      Atomics.wait(this.cell, HOLDER, holder, left);
    }
  }

  /** Gives the turn back (only by the one that took it) and wakes the other thread if it waits. */
  release(): void {
    Atomics.store(this.cell, HOLDER, FREE);
    Atomics.notify(this.cell, HOLDER);
  }
}

const turns = new WeakMap<object, WriteTurn>();

/** The turn of the SQLite file behind this Kysely instance, when openDatabase made one (a file, not :memory:). */
export function writeTurnOf(db: object): WriteTurn | undefined {
  return turns.get(db);
}

export function setWriteTurn(db: object, turn: WriteTurn): void {
  turns.set(db, turn);
}
