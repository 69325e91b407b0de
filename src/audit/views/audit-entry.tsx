import type { ComponentChildren } from 'preact';
import { formatDateTimeEs } from '../../shared/dates.js';
import { readableChanges, type CycleNumbers } from '../audit.format.js';
import { actionLabel, entityLabel } from '../audit.labels.js';
import type { AuditListRow } from '../audit.repository.js';

/** The fields before → after (or the details) of one entry, as staff typed and read them. */
export function AuditChanges({
  entityType,
  changes,
  timeZone,
  ciclos,
  actor = null,
}: {
  entityType: string | null;
  changes: string | null;
  timeZone: string;
  ciclos?: CycleNumbers;
  actor?: { id: number | null; username: string | null } | null;
}) {
  const parsed = readableChanges(entityType, changes, timeZone, undefined, ciclos, actor);
  if (parsed.fields.length === 0 && parsed.details.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="audit-changes">
      {parsed.fields.map((f) => (
        <li data-field={f.field}>
          <strong>{f.label}</strong>: <del>{f.before}</del> → <ins>{f.after}</ins>
        </li>
      ))}
      {parsed.details.map((d) => (
        <li data-detail={d.key}>
          <strong>{d.label}</strong>: {d.value}
        </li>
      ))}
    </ul>
  );
}

export function recordText(e: Pick<AuditListRow, 'entity_type' | 'entity_id' | 'ciclos'>): string {
  if (!e.entity_type) return '—';
  // A cycle by its number among the patient's (decision 0115), never by its internal id.
  if (e.entity_type === 'ingreso') {
    const numero = e.entity_id === null ? undefined : e.ciclos?.get(e.entity_id);
    return numero === undefined ? entityLabel(e.entity_type) : `${entityLabel(e.entity_type)} ${numero}`;
  }
  return e.entity_id === null ? entityLabel(e.entity_type) : `${entityLabel(e.entity_type)} #${e.entity_id}`;
}

/** One entry as a table row: when, who, action, record, changes. */
export function AuditRow({ entry, timeZone }: { entry: AuditListRow; timeZone: string }) {
  return (
    <tr data-audit-id={String(entry.id)} data-action={entry.action}>
      <AuditCells entry={entry} timeZone={timeZone} />
    </tr>
  );
}

/** When an entry was written, as its row shows it. */
export function AuditTime({ at, timeZone }: { at: string; timeZone: string }) {
  return <time dateTime={at}>{formatDateTimeEs(at, timeZone)}</time>;
}

/**
 * The cells of an entry's row: all but its id (a view shown before it is written has none yet). `time` stands in
 * for the AuditTime element when the cells are rendered once for many entries that differ only in it.
 */
export function AuditCells({ entry, timeZone, time }: { entry: Omit<AuditListRow, 'id'>; timeZone: string; time?: ComponentChildren }) {
  return (
    <>
      <td data-label="Fecha">{time ?? <AuditTime at={entry.at} timeZone={timeZone} />}</td>
      <td data-label="Usuario">{entry.username ?? <span class="muted">(sin usuario)</span>}</td>
      <td data-label="Acción">{actionLabel(entry.action)}</td>
      <td data-label="Registro">
        {recordText(entry)}
        {entry.patient_id !== null && entry.entity_type !== 'patient' && (
          <>
            {' '}
            <a href={`/patients/${entry.patient_id}/`}>(paciente #{entry.patient_id})</a>
          </>
        )}
        {entry.patient_id !== null && entry.entity_type === 'patient' && (
          <>
            {' '}
            <a href={`/patients/${entry.patient_id}/`}>ver</a>
          </>
        )}
      </td>
      <td data-label="Cambios">
        <AuditChanges entityType={entry.entity_type} changes={entry.changes} timeZone={timeZone} ciclos={entry.ciclos} actor={{ id: entry.user_id, username: entry.username }} />
      </td>
    </>
  );
}

/** Entries as a table, newest first as given; `empty` is shown when there are none. */
export function AuditTable({ entries, timeZone, empty }: { entries: AuditListRow[]; timeZone: string; empty: string }) {
  return (
    <AuditRowsTable count={entries.length} empty={empty}>
      {entries.map((e) => (
        <AuditRow entry={e} timeZone={timeZone} />
      ))}
    </AuditRowsTable>
  );
}

/** The audit table around rows already made (AuditRow elements, or kept rendered rows); `count` of them. */
export function AuditRowsTable({ count, empty, children }: { count: number; empty: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label="Entradas de auditoría">
      <table class="table" data-table="audit">
        <thead>
          <tr>
            <th scope="col">Fecha</th>
            <th scope="col">Usuario</th>
            <th scope="col">Acción</th>
            <th scope="col">Registro</th>
            <th scope="col">Cambios (antes → después)</th>
          </tr>
        </thead>
        <tbody>
          {children}
          {count === 0 && (
            <tr>
              <td colSpan={5} class="muted">
                {empty}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
