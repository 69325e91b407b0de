import { sql, type Kysely } from 'kysely';
import { idColumn } from './util.js';

// The rows an import leaves out, ready to fix and import again (issue 29, decision 0117).
//
// - patient_import_uploads gains `report_header` (the CSV heading: the file's own headings and «motivo»),
//   `skipped_csv` (the CSV lines of the rows the preview already knows will be left out, each with its reason) and
//   `similar_csv` (those of the possible duplicates: left out too unless the person ticks that they are other
//   people). Written with the analysis, in the worker's words; their size counts in the upload's `bytes`.
// - patient_import_reports: what a confirmed import left out, as one CSV, for its person to download for a day
//   (the next upload deletes older ones, as it does with previews). The file itself is never kept: only the rows
//   left out, as the person's own file had them.
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['report_header', 'skipped_csv', 'similar_csv']) {
    await db.schema.alterTable('patient_import_uploads').addColumn(column, 'text', (c) => c.notNull().defaultTo('')).execute();
  }
  const id = idColumn(db);
  await db.schema
    .createTable('patient_import_reports')
    .addColumn('id', id.type, id.build)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('filas', 'integer', (c) => c.notNull().check(sql`filas > 0`))
    .addColumn('csv', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('patient_import_reports_user_idx').on('patient_import_reports').columns(['user_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('patient_import_reports').execute();
  for (const column of ['similar_csv', 'skipped_csv', 'report_header']) {
    await db.schema.alterTable('patient_import_uploads').dropColumn(column).execute();
  }
}
