// A confirm answers within a wait (decision 0135): a large file on a busy PostgreSQL takes minutes (20,000 rows,
// one transaction a batch), longer than a browser or a reverse proxy waits for an answer. The confirm goes on in
// the background past the wait; the person is told it goes on, sees its progress in the pending list, and reads
// its outcome on the import page when it has ended. What it writes is what a confirm always wrote (decision 0058):
// whole patients a batch at a time, so a server stopped meanwhile leaves an import to be continued, never half a
// patient.

import type { Db } from '../db/database.js';
import { DomainError } from '../shared/domain-error.js';
import { confirmImport, type ConfirmInput, type ConfirmOutcome } from './import.confirm.js';

/** How long a confirm request waits for its import before answering that it goes on. */
export const CONFIRM_WAIT_MS = 10_000;
/** Outcomes of background imports not yet read, per person, kept at most this long. */
const FINISHED_KEPT_MS = 24 * 60 * 60 * 1000;

export type RunOutcome = ConfirmOutcome | { kind: 'continuing'; fileName: string };

export interface ConfirmRunner {
  /** The import confirmed: its outcome, or 'continuing' when it is still writing after the wait. */
  run(db: Db, input: ConfirmInput, upload: { file_name: string; created: number }): Promise<RunOutcome>;
  /** This upload's import is being written by this server now. */
  isRunning(uploadId: number): boolean;
  /** The outcomes of this person's imports that ended in the background since last asked (each given once). */
  takeFinished(userId: number): ConfirmOutcome[];
  /** Stops the imports at their next batch (what is written stays; confirming again goes on) and waits for them. */
  close(): Promise<void>;
}

export function createConfirmRunner(opts: {
  waitMs: number;
  now: () => number;
  /** Told of each interrupted import when it stops, whether or not its person ever reads the outcome. */
  onInterrupted: (outcome: Extract<ConfirmOutcome, { kind: 'interrupted' }>) => void;
}): ConfirmRunner {
  const running = new Map<number, Promise<ConfirmOutcome>>();
  const finished = new Map<number, { at: number; outcome: ConfirmOutcome }[]>();
  let stopping = false;

  return {
    async run(db, input, upload) {
      const writing = confirmImport(db, input, upload, () => stopping).catch(
        (error: unknown): ConfirmOutcome => ({ kind: 'interrupted', fileName: upload.file_name, created: upload.created, error }),
      );
      running.set(input.uploadId, writing);
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<'waited'>((resolve) => (timer = setTimeout(() => resolve('waited'), opts.waitMs)));
      const first = await Promise.race([writing, waited]);
      clearTimeout(timer);
      if (first !== 'waited') {
        running.delete(input.uploadId);
        // The person's session may have ended meanwhile: the route sends them to the login page.
        if (first.kind === 'interrupted' && isActorInactive(first.error)) throw first.error;
        if (first.kind === 'interrupted') opts.onInterrupted(first);
        return first;
      }
      void writing.then((outcome) => {
        running.delete(input.uploadId);
        if (outcome.kind === 'interrupted') opts.onInterrupted(outcome);
        const now = opts.now();
        const kept = (finished.get(input.userId) ?? []).filter((f) => now - f.at < FINISHED_KEPT_MS);
        kept.push({ at: now, outcome });
        finished.set(input.userId, kept);
      });
      return { kind: 'continuing', fileName: upload.file_name };
    },
    isRunning: (uploadId) => running.has(uploadId),
    takeFinished(userId) {
      const list = finished.get(userId) ?? [];
      finished.delete(userId);
      const now = opts.now();
      return list.filter((f) => now - f.at < FINISHED_KEPT_MS).map((f) => f.outcome);
    },
    async close() {
      stopping = true;
      await Promise.all(running.values());
    },
  };
}

const isActorInactive = (err: unknown): boolean => err instanceof DomainError && err.kind === 'actor_inactive';
