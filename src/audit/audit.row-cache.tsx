import type { ComponentChildren } from 'preact';
import type { Executor } from '../db/database.js';
import { FragmentSlot, renderFragment, type Fragment } from '../web/render.js';
import { listAuditEntriesByIds, listPatientHistoryIds, type AuditListRow } from './audit.repository.js';
import { AuditRow } from './views/audit-entry.js';

/**
 * Audit entries are never changed, so each is read from the table and rendered once, then kept by id (decision
 * 0016). A patient's history is read from the index (patient_id, id); only entries not kept yet (the views and
 * changes since the last visit) are read from the table, whose rows for one patient lie on as many pages as it
 * has entries. The least recently used entries are dropped past `maxEntries`.
 */
export class AuditRowCache {
  private readonly kept = new Map<number, { entry: AuditListRow; fragment: Fragment }>();

  constructor(
    private readonly timeZone: string,
    private readonly maxEntries: number,
  ) {}

  /** The patient's latest `limit` entries, newest first. */
  async patientHistory(db: Executor, patientId: number, limit: number): Promise<AuditListRow[]> {
    const ids = await listPatientHistoryIds(db, patientId, limit);
    const missing = ids.filter((id) => !this.kept.has(id));
    for (const entry of await listAuditEntriesByIds(db, missing)) this.keep(entry);
    const entries: AuditListRow[] = [];
    for (const id of ids) {
      const hit = this.kept.get(id);
      if (hit === undefined) continue; // only if dropped meanwhile by a larger history: read it again next time
      this.kept.delete(id);
      this.kept.set(id, hit);
      entries.push(hit.entry);
    }
    return entries;
  }

  /** The entry's row: the kept one, or rendered now (an entry not written yet has id 0). */
  readonly rowFor = (entry: AuditListRow): ComponentChildren => {
    const hit = entry.id === 0 ? undefined : this.kept.get(entry.id);
    return hit ? <FragmentSlot fragment={hit.fragment} /> : <AuditRow entry={entry} timeZone={this.timeZone} />;
  };

  private keep(entry: AuditListRow): void {
    const row = { ...entry, id: Number(entry.id) };
    this.kept.set(row.id, { entry: row, fragment: renderFragment(<AuditRow entry={row} timeZone={this.timeZone} />) });
    while (this.kept.size > this.maxEntries) this.kept.delete(this.kept.keys().next().value as number);
  }
}
