import type { Kysely } from 'kysely';

// documento_key becomes the canonical form of the documento (decision 0030): NFKC, invisible characters and the
// separators people type removed, upper case. Existing keys are recomputed. Where two existing patients now share
// a key nothing is merged or dropped: the oldest keeps the key, each other one gets '<key>#<id>' (still unique, and
// never a canonical key), and every member of the group is listed in documento_collisions for staff to resolve
// (the administrators' page /users/documentos/ and a log line at start).

// A frozen copy of documentoKey() as of this migration (migrations never import application code, and what this
// migration wrote must not change if the application's rule changes later).
const INVISIBLE = /[\p{Cf}\p{Cc}\p{Default_Ignorable_Code_Point}]/gu;
const SEPARATORS = /[\s\p{Z}.\u00B7\u2027\u3002\uFF61\p{Pd}\u2212]/gu;
const canonical = (documento: string): string =>
  documento.normalize('NFKC').replace(INVISIBLE, '').replace(SEPARATORS, '').toUpperCase();

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('documento_collisions')
    .addColumn('patient_id', 'integer', (c) => c.primaryKey().references('patients.id'))
    .addColumn('documento_key', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('documento_collisions_key_idx').on('documento_collisions').column('documento_key').execute();

  const rows: { id: number; documento: string; documento_key: string }[] = await db
    .selectFrom('patients')
    .select(['id', 'documento', 'documento_key'])
    .orderBy('id')
    .execute();
  const groups = new Map<string, number[]>();
  for (const row of rows) {
    const key = canonical(row.documento) || row.documento_key;
    const members = groups.get(key);
    if (members) members.push(row.id);
    else groups.set(key, [row.id]);
  }
  const target = new Map<number, string>();
  const collisions: { patient_id: number; documento_key: string }[] = [];
  for (const [key, ids] of groups) {
    ids.forEach((id, i) => target.set(id, i === 0 ? key : `${key}#${id}`));
    if (ids.length > 1) for (const id of ids) collisions.push({ patient_id: id, documento_key: key });
  }
  const changing = rows.filter((r) => target.get(r.id) !== r.documento_key);
  // Two passes, so no intermediate state holds a key another row still has (the unique index checks each update).
  for (const r of changing) {
    await db.updateTable('patients').set({ documento_key: `#${r.id}` }).where('id', '=', r.id).execute();
  }
  for (const r of changing) {
    await db.updateTable('patients').set({ documento_key: target.get(r.id)! }).where('id', '=', r.id).execute();
  }
  for (let i = 0; i < collisions.length; i += 500) {
    await db.insertInto('documento_collisions').values(collisions.slice(i, i + 500)).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('documento_collisions').execute();
}
