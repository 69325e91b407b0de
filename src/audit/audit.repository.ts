import { sql } from 'kysely';
import { cycleIdsOf, type CycleNumbers } from './audit.format.js';
import { isPostgres, type Db, type Executor } from '../db/database.js';
import { VIEW_ACTIONS } from './audit.labels.js';
import { insertRow, precompiled } from '../platform/writes/prepared.js';
import { inTransaction, retryingConflicts } from '../platform/writes/transaction.js';
import { noneOf } from '../platform/tables.js';
import { actorInactive } from '../shared/domain-error.js';
import { normalizeForSearch } from '../shared/text.js';
import { auditRowOf, type AuditEntry } from './audit.rules.js';
import { AUDIT_ROW_COLUMNS, type AuditRow, type NewAuditRow } from './audit.table.js';

export type { AuditEntry };


// What a deactivated user may still leave in the trail: the failed attempt and the end of the session.
const RECORDED_FOR_INACTIVE_USERS = new Set(['login_failed', 'logout']);

/** The actor who must still be active when the entry is written; null for an entry of nobody, a failed login, a logout. */
const actorToCheck = (entry: AuditEntry) => (entry.actor && !RECORDED_FOR_INACTIVE_USERS.has(entry.action) ? entry.actor : null);

/** The actor's is_active, share-locked on PostgreSQL (compiled once per dialect). */
const selectActorActive = precompiled((db: Executor, userId: number) =>
  db
    .selectFrom('users')
    .select('is_active')
    .where('id', '=', userId)
    .$if(isPostgres(db), (q) => q.forShare()),
);

/**
 * Appends one entry to the audit trail; call it inside the transaction of the change it records.
 * The actor must still be active when the transaction commits: on PostgreSQL the user's row is share-locked,
 * so a deactivation either waits for this transaction or this one sees it and throws actorInactive()
 * (rolling the change back); SQLite runs one transaction at a time, so the read alone settles it.
 */
export async function recordAudit(db: Executor, entry: AuditEntry): Promise<void> {
  const checked = actorToCheck(entry);
  if (checked) {
    const [actor] = await selectActorActive(db, checked.id);
    if (actor?.is_active !== 1) throw actorInactive();
  }
  await insertRow(db, 'audit_log', auditRowOf(entry));
}

/**
 * The entry inserted only while its actor is active, the actor's row share-locked until the statement commits: on
 * PostgreSQL, recordAudit's read and insert in one statement (compiled once; PostgreSQL types each value from its
 * column). Its new id when inserted; none when the actor is inactive.
 */
const insertWhileActorActive = precompiled((db: Executor, actorId: number, ...values: NewAuditRow[keyof NewAuditRow][]) =>
  (db as Db)
    .insertInto('audit_log')
    .columns([...AUDIT_ROW_COLUMNS])
    .expression(
      db
        .selectNoFrom(AUDIT_ROW_COLUMNS.map((column, i) => sql`${values[i]}`.as(column)))
        .where(({ exists }) => exists(db.selectFrom('users').select(sql`1`.as('one')).where('id', '=', actorId).where('is_active', '=', 1).forShare())),
    )
    .returning('id'),
);

/**
 * Appends one entry as a transaction of its own, durable when this resolves: what recordAudit does inside a change's
 * transaction, for an entry that records no change (an export, a failed login, a logout, an archive consulted). On
 * SQLite it joins the group commit like any transaction; on PostgreSQL it is one statement committed by itself,
 * not BEGIN, the actor's read, the insert and COMMIT: one round trip instead of four (decision 0360).
 */
export async function recordAuditAlone(db: Db, entry: AuditEntry): Promise<void> {
  if (!isPostgres(db)) return inTransaction(db, (trx) => recordAudit(trx, entry));
  const row = auditRowOf(entry);
  const checked = actorToCheck(entry);
  if (!checked) return retryingConflicts(() => insertRow(db, 'audit_log', row));
  const values = AUDIT_ROW_COLUMNS.map((column) => row[column]);
  const inserted = await retryingConflicts(() => insertWhileActorActive(db, checked.id, ...values));
  if (inserted.length === 0) throw actorInactive();
}

// ---------------------------------------------------------------------------------------------------------
// Reading the trail (the application never edits or deletes it).

export interface AuditFilters {
  userId?: number | null;
  action?: string | null;
  entityType?: string | null;
  entityId?: number | null;
  patientId?: number | null;
  /** a patient's documento (as typed: spaces, dots, hyphens ignored) or words of their name, each somewhere in it */
  patientText?: string | null;
  /** inclusive lower bound on `at` (ISO instant) */
  fromInstant?: string | null;
  /** exclusive upper bound on `at` (ISO instant) */
  toInstant?: string | null;
}

/**
 * An entry as the trail's pages show it: the stored row without its request id, with the cycle numbers of the
 * Ingresos it names (absent for a view not yet written).
 */
export type AuditListRow = Omit<AuditRow, 'request_id'> & { ciclos?: CycleNumbers };

/**
 * The cycle number (1, 2, 3 by start; decision 0115) of each Ingreso the entries name, attached to them: one query
 * for a page of entries, none when no entry names a cycle. Written here rather than taken from src/ingresos/
 * (which writes to the trail): the same count as its cycleNumberOf.
 */
async function withCycleNumbers<T extends AuditListRow>(db: Executor, rows: T[]): Promise<T[]> {
  const ids = new Set<number>();
  for (const r of rows) for (const id of cycleIdsOf(r.entity_type, r.entity_id, r.changes)) ids.add(id);
  if (ids.size === 0) return rows;
  // One cycle named (a patient's history, usually) is read by a statement compiled once.
  const found = ids.size === 1 ? await selectCycleNumber(db, ids.values().next().value!) : await cycleNumbers(db).where('i.id', 'in', [...ids]).execute();
  const ciclos: CycleNumbers = new Map(found.map((f) => [Number(f.id), Number(f.numero)]));
  return rows.map((r) => ({ ...r, ciclos }));
}

const cycleNumbers = (db: Executor) =>
  db.selectFrom('ingresos as i').select([
    'i.id',
    sql<number>`(select cast(count(*) as integer) from ingresos cn where cn.paciente_id = i.paciente_id
        and (cn.fecha_inicio < i.fecha_inicio or (cn.fecha_inicio = i.fecha_inicio and cn.id <= i.id)))`.as('numero'),
  ]);
const selectCycleNumber = precompiled((db: Executor, id: number) => cycleNumbers(db).where('i.id', '=', id));

const AUDIT_COLUMNS = ['id', 'at', 'user_id', 'username', 'action', 'entity_type', 'entity_id', 'patient_id', 'changes'] as const;

/** The patient filter's text as the patients' stored keys hold it: the documento's key and the name's words. */
function patientTextMatch(text: string): { key: string; words: string[] } {
  const key = text.normalize('NFKC').replace(/[\s.\-\u200B-\u200D\uFEFF]/g, '').toUpperCase();
  return { key, words: normalizeForSearch(text).split(' ').filter((w) => w !== '').slice(0, 8) };
}

/** LIKE's own characters taken literally (SQLite's LIKE has no default escape: none is used, so they are dropped). */
const escapeLike = (w: string) => w.replace(/[%_\\]/g, '');

/**
 * Entries matching the filters, newest first (at, then id, descending), after the keyset cursor `before`
 * (an entry's at and id), at most `limit`.
 */
export async function listAuditEntries(
  db: Executor,
  filters: AuditFilters,
  before: { at: string; id: number } | null,
  limit: number,
): Promise<AuditListRow[]> {
  // A patient's latest entries (the patient page's history with its views) are read by a statement compiled once.
  if (filters.patientId != null && before === null && Object.values(filters).filter((v) => v != null && v !== '').length === 1) {
    return withCycleNumbers(db, await selectPatientLatest(db, filters.patientId, limit));
  }
  let q = db.selectFrom('audit_log').select(AUDIT_COLUMNS);
  if (filters.userId != null) q = q.where('user_id', '=', filters.userId);
  if (filters.action) q = q.where('action', '=', filters.action);
  if (filters.entityType) q = q.where('entity_type', '=', filters.entityType);
  if (filters.entityId != null) q = q.where('entity_id', '=', filters.entityId);
  if (filters.patientId != null) q = q.where('patient_id', '=', filters.patientId);
  if (filters.patientText) {
    const { key, words } = patientTextMatch(filters.patientText);
    // The patients whose documento is the text, or whose name and documento hold each of its words (a scan of
    // the patients' search text, once per query: an administrator's page). The trail's patient_id index does the rest.
    q = q.where('patient_id', 'in', (eb) =>
      eb
        .selectFrom('patients')
        .select('id')
        .where((p) =>
          p.or([
            p('documento_key', '=', key),
            ...(words.length > 0 ? [p.and(words.map((w) => p('search_text', 'like', `%${escapeLike(w)}%`)))] : []),
          ]),
        ),
    );
  }
  if (filters.fromInstant) q = q.where('at', '>=', filters.fromInstant);
  if (filters.toInstant) q = q.where('at', '<', filters.toInstant);
  if (before) q = q.where((eb) => eb(eb.refTuple('at', 'id'), '<', eb.tuple(before.at, before.id)));
  return withCycleNumbers(db, await q.orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute());
}

const selectPatientLatest = precompiled((db: Executor, patientId: number, limit: number) =>
  db.selectFrom('audit_log').select(AUDIT_COLUMNS).where('patient_id', '=', patientId).orderBy('at', 'desc').orderBy('id', 'desc').limit(limit),
);

/** The `at` of an entry, to continue a listing after it (keyset cursor). */
export async function findAuditCursor(db: Executor, id: number): Promise<{ at: string; id: number } | null> {
  const row = await db.selectFrom('audit_log').select(['at', 'id']).where('id', '=', id).executeTakeFirst();
  return row ?? null;
}

/**
 * Entries that are not views, word for word the condition of the partial index audit_log_patient_changes_idx
 * (generated at start from the same list, src/platform/tables.ts), with the actions as literals: both engines then
 * read a patient's changes from that index.
 */
const NOT_A_VIEW = sql<boolean>`${sql.raw(noneOf('action', VIEW_ACTIONS))}`;

/** Which of a patient's entries a history shows: every entry, or only the changes (views left out). */
export type HistoryScope = 'all' | 'changes';

/** A patient's history for the patient page: entries with that patient_id, newest first, at most `limit`. */
const selectPatientHistoryIds = {
  all: precompiled((db: Executor, patientId: number, limit: number) =>
    db.selectFrom('audit_log').select('id').where('patient_id', '=', patientId).orderBy('id', 'desc').limit(limit),
  ),
  changes: precompiled((db: Executor, patientId: number, limit: number) =>
    db.selectFrom('audit_log').select('id').where('patient_id', '=', patientId).where(NOT_A_VIEW).orderBy('id', 'desc').limit(limit),
  ),
};

/** The ids of a patient's latest entries, newest first: read from the index (patient_id, id) alone. */
export async function listPatientHistoryIds(db: Executor, patientId: number, limit: number, scope: HistoryScope = 'all'): Promise<number[]> {
  return (await selectPatientHistoryIds[scope](db, patientId, limit)).map((r) => Number(r.id));
}

const selectAuditEntryById = precompiled((db: Executor, id: number) => db.selectFrom('audit_log').select(AUDIT_COLUMNS).where('id', '=', id));

const selectPatientHistoryAfter = {
  all: precompiled((db: Executor, patientId: number, afterId: number, limit: number) =>
    db.selectFrom('audit_log').select(AUDIT_COLUMNS).where('patient_id', '=', patientId).where('id', '>', afterId).orderBy('id', 'desc').limit(limit),
  ),
  changes: precompiled((db: Executor, patientId: number, afterId: number, limit: number) =>
    db
      .selectFrom('audit_log')
      .select(AUDIT_COLUMNS)
      .where('patient_id', '=', patientId)
      .where(NOT_A_VIEW)
      .where('id', '>', afterId)
      .orderBy('id', 'desc')
      .limit(limit),
  ),
};

/** A patient's entries with an id above `afterId`, newest first, at most `limit` (index (patient_id, id)). */
export async function listPatientHistoryAfter(
  db: Executor,
  patientId: number,
  afterId: number,
  limit: number,
  scope: HistoryScope = 'all',
): Promise<AuditListRow[]> {
  return withCycleNumbers(db, (await selectPatientHistoryAfter[scope](db, patientId, afterId, limit)).map((e) => ({ ...e, id: Number(e.id) })));
}

/** Entries by id (any order). One id (a patient page's usual case: the view since the last visit) is precompiled. */
export async function listAuditEntriesByIds(db: Executor, ids: readonly number[]): Promise<AuditListRow[]> {
  if (ids.length === 0) return [];
  if (ids.length === 1) return withCycleNumbers(db, await selectAuditEntryById(db, ids[0]!));
  return withCycleNumbers(db, await db.selectFrom('audit_log').select(AUDIT_COLUMNS).where('id', 'in', ids).execute());
}

/** The users the trail's filter offers (every account, active or not: its entries stay), by name. */
export async function listActors(db: Executor): Promise<{ id: number; username: string }[]> {
  return db.selectFrom('users').select(['id', 'username']).orderBy('username_key').orderBy('id').execute();
}
