import { sql, type Kysely } from 'kysely';

// The CPAP worklist (decisions 0103 and 0147) asks each open AOS cycle for its latest CPAP download not voided: with
// this index that is one seek to the end of the cycle's downloads, read from the index alone, instead of reading
// every monitoring record of the cycle from the table (exam_records_ingreso_kind_fecha_idx). The constant columns
// (kind, tipo, anulado_at) are in it so that SQLite, which keeps no statistics, prefers it and answers from it alone.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index exam_records_cpap_idx on exam_records (ingreso_id, kind, tipo, anulado_at, fecha, id)
    where kind = 'MONITOREO' and tipo = 'DESCARGA_CPAP' and anulado_at is null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index exam_records_cpap_idx`.execute(db);
}
