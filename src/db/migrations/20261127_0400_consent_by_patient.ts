import type { Kysely } from 'kysely';

// The patient's record page shows every contact consent of the patient, withdrawn ones too (issue 28): the only
// index by patient was the partial one of the live consents, so an uncached record page read the whole table.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('contacto_consentimientos_paciente_idx').on('contacto_consentimientos').columns(['paciente_id', 'canal']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('contacto_consentimientos_paciente_idx').execute();
}
