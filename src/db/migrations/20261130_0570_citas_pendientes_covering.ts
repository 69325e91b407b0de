import { sql, type Kysely } from 'kysely';

// The worklists of due visits, semana and vencidas (issue 28, decision 0290): each walks the PENDIENTE visits by their
// due date. citas_estado_vence_idx (estado, vence_el) held every visit (2.1 M at 100,000 patients) and made the walk
// read each visit's row for its cycle and kind; filtered by a professional the walk reads some 2,200 visits to keep
// 200. This partial index holds the PENDIENTE visits only (180,000 there), with what the walk tests and the list
// shows: the cycle (the professional's filter, tested in the index) and the kind. `estado` is a column although
// constant, so that SQLite knows the index covers the condition and reads no visit's row; the lists say the state as
// a constant. It is the last column: led by it, the index was an equality on `estado` that also gave the order of
// the booking's search for its cycle's earliest due visit (findDueVisit), and SQLite walked every due visit of the
// clinic by date to reach the cycle's (5 ms; 210 ms in citas_estado_vence_idx, which did the same). Nothing else
// read citas_estado_vence_idx, and it cost every visit written: dropped.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index citas_pendientes_idx on citas (vence_el, id, ingreso_id, tipo, estado) where estado = 'PENDIENTE'`.execute(db);
  await sql`drop index citas_estado_vence_idx`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create index citas_estado_vence_idx on citas (estado, vence_el)`.execute(db);
  await sql`drop index citas_pendientes_idx`.execute(db);
}
