import { sql, type Kysely } from 'kysely';

// What the records lack for RIPS (issue 27, decision 0090): the patient's tipo_usuario (RIPS table
// RIPSTipoUsuarioVersion2, '01'..'13'; '' = not yet asked: existing patients stay blank, never guessed), each
// user's own document (the attending professional of a RIPS service), and an exam record's time of day (null for
// the records written before: RIPS then uses the documented default of decision 0090).

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table patients add column tipo_usuario text not null default ''
    check (tipo_usuario = '' or (length(tipo_usuario) = 2 and tipo_usuario >= '01' and tipo_usuario <= '13'))`.execute(db);
  await sql`alter table users add column tipo_documento text not null default ''`.execute(db);
  await sql`alter table users add column documento text not null default ''`.execute(db);
  await sql`alter table exam_records add column hora text
    check (hora is null or (length(hora) = 5 and substr(hora, 3, 1) = ':' and hora >= '00:00' and hora <= '23:59'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table exam_records drop column hora`.execute(db);
  await sql`alter table users drop column documento`.execute(db);
  await sql`alter table users drop column tipo_documento`.execute(db);
  await sql`alter table patients drop column tipo_usuario`.execute(db);
}
