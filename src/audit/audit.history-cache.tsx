import type { ComponentChildren } from 'preact';
import type { Executor } from '../db/database.js';
import { FragmentSlot, renderFragment } from '../web/render.js';
import { listAuditEntriesByIds, listPatientHistoryIds, type AuditListRow } from './audit.repository.js';
import { AuditRow } from './views/audit-entry.js';

/** What a kept entry costs beside its HTML: its id, its key and its end offset (an estimate, for the bound). */
const ENTRY_OVERHEAD_BYTES = 96;

/** A patient's latest entries, newest first, as rendered rows in one block of bytes. */
interface KeptHistory {
  readonly ids: readonly number[];
  /** auditEntryKey of each entry: how a pending view already written is recognised */
  readonly keys: readonly string[];
  readonly html: Buffer;
  /** ends[i]: where row i ends in `html` */
  readonly ends: readonly number[];
  readonly bytes: number;
}

export interface HistoryRows {
  /** entries shown */
  count: number;
  rows: ComponentChildren;
}

/** Same entry, written or not yet: a view pending in the queue has no id, but the same instant, action and actor. */
export const auditEntryKey = (r: Pick<AuditListRow, 'at' | 'action' | 'user_id' | 'entity_id'>): string =>
  `${r.at}|${r.action}|${r.user_id ?? ''}|${r.entity_id ?? ''}`;

/**
 * The history on each patient's page (decision 0016). Audit entries are never changed, so each patient's latest
 * entries are kept rendered, in one block of bytes per patient. A visit reads the ids from the index
 * (patient_id, id); the entries written since the last visit (usually the views of the visits in between) are
 * the only ones read from the table and rendered, and go on top of the kept rows. The least recently seen
 * patients are dropped past `maxBytes`.
 */
export class PatientHistoryCache {
  private readonly kept = new Map<number, KeptHistory>();
  private keptBytes = 0;

  constructor(
    private readonly timeZone: string,
    private readonly maxBytes: number,
  ) {}

  /** Bytes held (for the bound's tests). */
  get bytes(): number {
    return this.keptBytes;
  }

  /**
   * The patient's latest `limit` entries, newest first, with the views not written yet (`pending`, newest first)
   * on top: each entry once (a group committed while the page was read may be in both), at most `limit`.
   */
  async rows(db: Executor, patientId: number, limit: number, pending: readonly AuditListRow[]): Promise<HistoryRows> {
    const ids = await listPatientHistoryIds(db, patientId, limit);
    const history = await this.historyOf(db, patientId, ids);
    const written = new Set(history.keys);
    const unwritten = pending.filter((r) => !written.has(auditEntryKey(r))).slice(0, limit);
    const stored = Math.min(history.ids.length, limit - unwritten.length);
    const rows: ComponentChildren[] = unwritten.map((entry) => <AuditRow entry={entry} timeZone={this.timeZone} />);
    if (stored > 0) {
      const end = history.ends[stored - 1]!;
      rows.push(<FragmentSlot fragment={{ parts: [history.html.subarray(0, end)], size: end }} />);
    }
    return { count: unwritten.length + stored, rows };
  }

  private async historyOf(db: Executor, patientId: number, ids: readonly number[]): Promise<KeptHistory> {
    const before = this.kept.get(patientId);
    if (before && sameIds(before.ids, ids)) {
      this.store(patientId, before);
      return before;
    }
    // Entries are only ever added: the kept ones usually follow the new ones.
    let fresh = ids.length;
    if (before && before.ids.length > 0) {
      const k = ids.indexOf(before.ids[0]!);
      if (k >= 0 && ids.length - k <= before.ids.length && ids.slice(k).every((id, j) => before.ids[j] === id)) fresh = k;
    }
    const reused = fresh < ids.length ? ids.length - fresh : 0;
    const read = new Map((await listAuditEntriesByIds(db, ids.slice(0, fresh))).map((e) => [Number(e.id), e]));
    const parts: Buffer[] = [];
    const keptIds: number[] = [];
    const keys: string[] = [];
    const ends: number[] = [];
    let end = 0;
    for (const id of ids.slice(0, fresh)) {
      const entry = read.get(id);
      if (entry === undefined) continue; // never deleted; an id without its row is simply not shown
      const html = this.rendered({ ...entry, id });
      parts.push(html);
      end += html.length;
      ends.push(end);
      keptIds.push(id);
      keys.push(auditEntryKey(entry));
    }
    if (reused > 0 && before) {
      const upTo = before.ends[reused - 1]!;
      parts.push(before.html.subarray(0, upTo));
      for (let j = 0; j < reused; j++) {
        ends.push(end + before.ends[j]!);
        keptIds.push(before.ids[j]!);
        keys.push(before.keys[j]!);
      }
      end += upTo;
    }
    // Memory of its own: a slice of a shared or older block would keep that whole block alive.
    const html = Buffer.allocUnsafeSlow(end);
    let at = 0;
    for (const part of parts) at += part.copy(html, at);
    const history: KeptHistory = { ids: keptIds, keys, html, ends, bytes: end + ENTRY_OVERHEAD_BYTES * keptIds.length };
    this.store(patientId, history);
    return history;
  }

  private rendered(entry: AuditListRow): Buffer {
    const { parts } = renderFragment(<AuditRow entry={entry} timeZone={this.timeZone} />);
    return Buffer.concat(parts.map((p) => p ?? Buffer.alloc(0)));
  }

  /** Keeps (or refreshes) a patient's history as the most recently seen, dropping the least recent past the bound. */
  private store(patientId: number, history: KeptHistory): void {
    const old = this.kept.get(patientId);
    if (old) {
      this.kept.delete(patientId);
      this.keptBytes -= old.bytes;
    }
    this.kept.set(patientId, history);
    this.keptBytes += history.bytes;
    for (const [oldest, dropped] of this.kept) {
      if (this.keptBytes <= this.maxBytes || oldest === patientId) break;
      this.kept.delete(oldest);
      this.keptBytes -= dropped.bytes;
    }
  }
}

const sameIds = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((id, i) => id === b[i]);
