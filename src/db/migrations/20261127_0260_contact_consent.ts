import { sql, type Kysely } from 'kysely';
import { idColumn } from './util.js';

// Contact consent (issue 28; Ley 1581 de 2012, decision 0104): by which channel a patient agreed to be contacted,
// from which date, and when it was withdrawn. A consent is never deleted: withdrawing it sets `retirado_el`, and
// giving it again adds a row. At most one live (not withdrawn) consent per patient and channel, held by a partial
// unique index on both engines.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idColumn(db);
  await db.schema
    .createTable('contacto_consentimientos')
    .addColumn('id', id.type, id.build)
    .addColumn('paciente_id', 'integer', (c) => c.notNull().references('patients.id').onDelete('cascade'))
    .addColumn('canal', 'text', (c) => c.notNull().check(sql`canal = 'TELEFONO' or canal = 'SMS' or canal = 'WHATSAPP' or canal = 'EMAIL'`))
    .addColumn('otorgado_el', 'text', (c) => c.notNull())
    .addColumn('retirado_el', 'text')
    .addColumn('registrado_por', 'integer', (c) => c.references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('contacto_consentimientos_fechas', sql`retirado_el is null or retirado_el >= otorgado_el`)
    .execute();
  await sql`create unique index contacto_consentimientos_vigente on contacto_consentimientos (paciente_id, canal) where retirado_el is null`.execute(db);

  // The secret, revocable addresses of the professionals' calendar feeds (decision 0105): the token's SHA-256 is
  // kept, never the token.
  await db.schema
    .createTable('agenda_feeds')
    .addColumn('id', id.type, id.build)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revocado_at', 'text')
    .execute();
  await db.schema.createIndex('agenda_feeds_user_idx').on('agenda_feeds').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('agenda_feeds').execute();
  await db.schema.dropTable('contacto_consentimientos').execute();
}
