import type { Kysely } from 'kysely';

// The duplicate-person check (decision 0043) reads the names and documento of everyone born on the create's date.
// Through patients_birth_idx (fecha_nacimiento, id) each of those rows was a page of the patients table read at
// random: at 100,000 patients, ~200 µs of a create whose page missed SQLite's cache (decision 0055). The index
// now holds what the check reads, so it is answered from the index alone on both engines.
const COVERING = ['fecha_nacimiento', 'id', 'nombre', 'apellido', 'documento'];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('patients_birth_idx').execute();
  await db.schema.createIndex('patients_birth_idx').on('patients').columns(COVERING).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('patients_birth_idx').execute();
  await db.schema.createIndex('patients_birth_idx').on('patients').columns(['fecha_nacimiento', 'id']).execute();
}
