import { sql, type Kysely } from 'kysely';
import { idColumn, isPostgres } from './util.js';

// The spreadsheet import (decision 0042) and the duplicate-person warning (decision 0043).
//
// - patient_import_uploads: an uploaded file between its preview and its confirmation, for the user who sent
//   it (so any instance behind a load balancer can confirm it). Deleted by the confirmation's transaction, and
//   anything older than a day when the next upload arrives. It never holds anything the application shows.
// - patients_birth_idx: the possible duplicates of a person are looked up by birth date.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idColumn(db);
  await db.schema
    .createTable('patient_import_uploads')
    .addColumn('id', id.type, id.build)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('content', isPostgres(db) ? sql`bytea` : sql`blob`, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('patient_import_uploads_user_idx').on('patient_import_uploads').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('patients_birth_idx').on('patients').columns(['fecha_nacimiento', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('patients_birth_idx').execute();
  await db.schema.dropTable('patient_import_uploads').execute();
}
