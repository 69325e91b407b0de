import type { ComponentChildren } from 'preact';
import { formatDateTimeEs } from '../shared/dates.js';
import { ContentMarker, escapeAttribute, FragmentSlot, fragmentOfParts, renderFrame, type Fragment } from '../web/render.js';
import { isPostgres, type Executor } from '../db/database.js';
import { patientVersionReader } from '../platform/pages/table-versions.js';
import { ADMISSION_WINDOW, SecondRequest } from '../platform/pages/second-request.js';
import { listAuditEntriesByIds, listPatientHistoryAfter, listPatientHistoryIds, type AuditListRow, type HistoryScope } from './audit.repository.js';
import { AuditCells, recordText } from './views/audit-entry.js';

/** What a kept history costs beside its rows' HTML: its arrays and objects (an estimate, for the bound). */
const HISTORY_OVERHEAD_BYTES = 400;
/**
 * Row frames kept for entries without changes (views, mostly): one per user and patient seen, a few hundred bytes
 * each.
 */
const FRAMES_MAX = 4096;
const ROW_END = Buffer.from('</tr>');

/** A patient's latest entries, newest first, as rendered rows in one block of bytes (typed arrays: compact). */
interface KeptHistory {
  readonly ids: Float64Array;
  /** keyHash of each entry: how a pending view already written is recognised */
  readonly keys: Float64Array;
  readonly html: Buffer;
  /** ends[i]: where row i ends in `html` */
  readonly ends: Uint32Array;
  /** the limit it was read with: it holds at most that many */
  readonly limit: number;
  readonly bytes: number;
  /** The patient's counter read before the entries (the changes only; null for a history with views). */
  readonly version: string | null;
}

/** A patient's counter: every entry that is not a view bumps it (decision 0051; audit.table.ts says which are views). */
const readPatientVersion = patientVersionReader([]);

/** What changed since a kept history: the entries to add on top (newest first) and how many kept rows follow. */
interface Changes {
  entries: AuditListRow[];
  reused: number;
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
 * A 53-bit hash of the key (FNV-1a over two lanes), kept instead of the key's text. Two different entries of one
 * patient would have to collide for a pending view to be left out of one page (it is in the trail all the same).
 */
function keyHash(r: Pick<AuditListRow, 'at' | 'action' | 'user_id' | 'entity_id'>): number {
  const key = auditEntryKey(r);
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
  }
  return (b & 0x1fffff) * 0x100000000 + a;
}

/**
 * The history on each patient's page (decision 0016). Audit entries are never changed, so each patient's latest
 * entries are kept rendered, in one block of bytes per patient. A visit reads only the entries written since
 * the last one (usually the views of the visits in between), renders them and puts them on top of the kept rows.
 * A history of the changes only (no views) is kept under the patient's counter, which every entry that is not a
 * view bumps (decision 0051): while it stands, a visit reads that counter and nothing of the trail.
 * The least recently seen patients are dropped past `maxBytes`.
 */
export class PatientHistoryCache {
  private readonly kept = new Map<number, KeptHistory>();
  private keptBytes = 0;
  /** The cells of entries without changes around their time, by everything else they show. */
  private readonly frames = new Map<string, Fragment[]>();
  /** Patients whose history is kept from their second visit in a while (decision 0375). */
  private readonly admission: SecondRequest<number>;

  constructor(
    private readonly timeZone: string,
    private readonly maxBytes: number,
    /** every entry, or only the changes (the views left out, in SQL) */
    private readonly scope: HistoryScope = 'all',
    /** 0: every patient's history kept from the first visit (tests of what is done with a kept one) */
    admissionWindow = ADMISSION_WINDOW,
  ) {
    this.admission = new SecondRequest(admissionWindow);
  }

  /** Bytes held (for the bound's tests). */
  get bytes(): number {
    return this.keptBytes;
  }

  /**
   * The patient's latest `limit` entries, newest first, with the views not written yet (`pending`, newest first)
   * on top: each entry once (a group committed while the page was read may be in both), at most `limit`.
   * `patientVersion`: the patient's counter as the request read it before anything it shows (the record page's,
   * PageCache.getOfPatient); read here when null.
   */
  async rows(db: Executor, patientId: number, limit: number, pending: readonly AuditListRow[], patientVersion: string | null = null): Promise<HistoryRows> {
    const history = await this.historyOf(db, patientId, limit, patientVersion);
    const written = new Set(history.keys);
    const unwritten = pending.filter((r) => !written.has(keyHash(r))).slice(0, limit);
    const stored = Math.min(history.ids.length, limit - unwritten.length);
    const rows: ComponentChildren[] = [];
    if (unwritten.length > 0) {
      rows.push(<FragmentSlot fragment={fragmentOfParts(unwritten.map((entry) => this.row(entry)))} />);
    }
    if (stored > 0) {
      const end = history.ends[stored - 1]!;
      rows.push(<FragmentSlot fragment={{ parts: [history.html.subarray(0, end)], size: end }} />);
    }
    return { count: unwritten.length + stored, rows };
  }

  private async historyOf(db: Executor, patientId: number, limit: number, patientVersion: string | null): Promise<KeptHistory> {
    const kept = this.kept.get(patientId);
    // One kept with a smaller limit, and full, may lack older entries: it is read anew.
    const before = kept && (kept.limit >= limit || kept.ids.length < kept.limit) ? kept : undefined;
    // The changes only: read before the entries, so an entry written meanwhile bumps it past what is kept.
    const version = this.scope === 'changes' ? (patientVersion ?? (await readPatientVersion(db, patientId)).patient) : null;
    if (before && version !== null && before.version === version && before.limit === limit) {
      this.store(patientId, before);
      return before;
    }
    const { entries, reused } = isPostgres(db) ? await this.changedByIds(db, patientId, limit, before) : await this.changedSince(db, patientId, limit, before);
    if (before && entries.length === 0 && reused === before.ids.length && before.limit === limit) {
      const same = before.version === version ? before : { ...before, version };
      this.store(patientId, same);
      return same;
    }
    const rows = entries.map((entry) => ({ id: entry.id, key: keyHash(entry), html: this.row(entry) }));
    const count = rows.length + reused;
    const keptIds = new Float64Array(count);
    const keys = new Float64Array(count);
    const ends = new Uint32Array(count);
    let end = 0;
    rows.forEach((row, i) => {
      end += row.html.length;
      ends[i] = end;
      keptIds[i] = row.id;
      keys[i] = row.key;
    });
    const reusedBytes = reused > 0 ? before!.ends[reused - 1]! : 0;
    for (let j = 0; j < reused; j++) {
      ends[rows.length + j] = end + before!.ends[j]!;
      keptIds[rows.length + j] = before!.ids[j]!;
      keys[rows.length + j] = before!.keys[j]!;
    }
    // Memory of its own: a slice of a shared or older block would keep that whole block alive.
    const html = Buffer.allocUnsafeSlow(end + reusedBytes);
    let at = 0;
    for (const row of rows) at += row.html.copy(html, at);
    if (reused > 0) before!.html.copy(html, at, 0, reusedBytes);
    const history: KeptHistory = { ids: keptIds, keys, html, ends, limit, bytes: html.length + HISTORY_OVERHEAD_BYTES, version };
    this.store(patientId, history);
    return history;
  }

  /**
   * SQLite: the entries written since the newest kept one, read in one statement. Writes are serialized there, so
   * an entry committed later always has a greater id than every entry a reader has already seen.
   */
  private async changedSince(db: Executor, patientId: number, limit: number, before: KeptHistory | undefined): Promise<Changes> {
    const entries = await listPatientHistoryAfter(db, patientId, before && before.ids.length > 0 ? before.ids[0]! : 0, limit, this.scope);
    return { entries, reused: before ? Math.min(before.ids.length, limit - entries.length) : 0 };
  }

  /**
   * PostgreSQL: the latest ids, then the entries not kept. Ids come from a sequence when a row is inserted, so a
   * transaction may commit a smaller id after a greater one was seen; comparing the ids finds it all the same.
   */
  private async changedByIds(db: Executor, patientId: number, limit: number, before: KeptHistory | undefined): Promise<Changes> {
    // Nothing kept to compare with (a patient not seen since the start, or dropped by the bound): the latest entries
    // in one statement, as SQLite reads them, not their ids and then the rows of those ids (decision 0365).
    if (before === undefined) return { entries: await listPatientHistoryAfter(db, patientId, 0, limit, this.scope), reused: 0 };
    const ids = await listPatientHistoryIds(db, patientId, limit, this.scope);
    if (sameIds(before.ids, ids)) return { entries: [], reused: ids.length };
    // Entries are only ever added: the kept ones usually follow the new ones.
    let fresh = ids.length;
    if (before.ids.length > 0) {
      const k = ids.indexOf(before.ids[0]!);
      if (k >= 0 && ids.length - k <= before.ids.length && ids.slice(k).every((id, j) => before.ids[j] === id)) fresh = k;
    }
    const read = new Map((await listAuditEntriesByIds(db, ids.slice(0, fresh))).map((e) => [Number(e.id), e]));
    // Entries are never deleted; an id without its row is simply not shown.
    const entries = ids.slice(0, fresh).flatMap((id) => {
      const entry = read.get(id);
      return entry === undefined ? [] : [{ ...entry, id }];
    });
    return { entries, reused: fresh < ids.length ? ids.length - fresh : 0 };
  }

  /**
   * An entry's row as bytes. Entries without changes (each visit's view) differ from the earlier ones of the same
   * user and patient only in their time: their cells are rendered once, around a marker, and only the time anew.
   */
  private row(entry: AuditListRow): Buffer {
    const start = Buffer.from(`<tr data-audit-id="${entry.id}" data-action="${escapeAttribute(entry.action)}">`);
    const shape =
      entry.changes === null
        ? JSON.stringify([entry.action, entry.user_id, entry.username, entry.entity_type, entry.entity_id, entry.patient_id, recordText(entry)])
        : null;
    let frame = shape === null ? undefined : this.frames.get(shape);
    if (frame === undefined) {
      frame = renderFrame(<AuditCells entry={entry} timeZone={this.timeZone} time={<ContentMarker />} />, 1);
      if (shape !== null) {
        if (this.frames.size >= FRAMES_MAX) this.frames.delete(this.frames.keys().next().value!);
        this.frames.set(shape, frame);
      }
    }
    // AuditTime's markup, written here: a render of its own cost as much as the rest of the row (the tests compare).
    const time = Buffer.from(`<time datetime="${escapeAttribute(entry.at)}">${escapeAttribute(formatDateTimeEs(entry.at, this.timeZone))}</time>`);
    return Buffer.concat([start, ...bytesOf(frame[0]!), time, ...bytesOf(frame[1]!), ROW_END]);
  }

  /** Keeps (or refreshes) a patient's history as the most recently seen, dropping the least recent past the bound. */
  private store(patientId: number, history: KeptHistory): void {
    const old = this.kept.get(patientId);
    if (old === undefined && !this.admission.admits(patientId)) return;
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

const sameIds = (a: Float64Array, b: readonly number[]): boolean => a.length === b.length && b.every((id, i) => id === a[i]);

/** A fragment's bytes (rows hold no CSRF field). */
const bytesOf = (fragment: Fragment): Buffer[] => fragment.parts.filter((p): p is Buffer => p !== null);
