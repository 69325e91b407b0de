import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// Pages of the patient lists whose cost does not grow with the page number (issue 30, decision 0171).
// patient_list_blocks cuts the list order into blocks of consecutive apellido_norm values, ~BLOCK_PATIENTS patients
// each: a block holds the patients whose apellido_norm is at or after its start_key and before the next block's,
// with how many they are (n_all) and how many are active (n_active). Triggers on patients keep the counts in the
// statement that changes a patient, so the patients before any block are a sum of the counts before it, exact under
// any write; a page starts from the nearest block's start (a range of the order index) and walks within one block,
// instead of walking from the list's nearer end with OFFSET. The block '' (before every other text, in any
// collation) always exists, so every patient has a block. Where the blocks start only decides how far a page
// walks, never what it shows: fillListBlocks cuts them again from the data (here, and after bench:data's load).

/** Patients a block is cut at (a block ends at the first apellido_norm that brings it to this many or more). */
export const BLOCK_PATIENTS = 1000;

/** Replaces every block by blocks of ~`blockPatients` patients cut from the patients now there, with their counts. */
export async function fillListBlocks(db: Kysely<any>, blockPatients = BLOCK_PATIENTS): Promise<void> {
  // Two reads of the order indexes alone (of every patient, of the active ones: both cover their count), not one
  // that visits every patient's row for activo_desde: ~15 ms instead of ~160 ms at 100,000 patients on SQLite
  // (decision 0172). The active counts are matched by key, never by comparing keys here (the database's collation).
  const { rows } = await sql<{ k: string; n: number }>`
    select apellido_norm as k, count(*) as n from patients group by apellido_norm order by apellido_norm`.execute(db);
  const active = new Map(
    (
      await sql<{ k: string; n: number }>`
        select apellido_norm as k, count(*) as n from patients where activo_desde is not null group by apellido_norm`.execute(db)
    ).rows.map((r) => [r.k, Number(r.n)]),
  );
  const blocks: { start_key: string; n_all: number; n_active: number }[] = [{ start_key: '', n_all: 0, n_active: 0 }];
  for (const r of rows) {
    let last = blocks[blocks.length - 1]!;
    if (last.n_all >= blockPatients && r.k !== '') {
      last = { start_key: r.k, n_all: 0, n_active: 0 };
      blocks.push(last);
    }
    last.n_all += Number(r.n);
    last.n_active += active.get(r.k) ?? 0;
  }
  await sql`delete from patient_list_blocks`.execute(db);
  for (let i = 0; i < blocks.length; i += 200) {
    await db.insertInto('patient_list_blocks').values(blocks.slice(i, i + 200)).execute();
  }
}

// The block of a text: the last start at or before it (the same comparison as the list's order).
const blockOf = (key: string) => `(select max(b.start_key) from patient_list_blocks as b where b.start_key <= ${key})`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('patient_list_blocks')
    .addColumn('start_key', 'text', (c) => c.primaryKey())
    .addColumn('n_all', 'integer', (c) => c.notNull().check(sql`n_all >= 0`))
    .addColumn('n_active', 'integer', (c) => c.notNull().check(sql`n_active >= 0`))
    .execute();
  await fillListBlocks(db);
  if (isPostgres(db)) {
    // One update for both blocks of a change of block: the rows are locked in the index's order, never in two
    // orders by two transactions.
    await sql
      .raw(
        `create function patient_list_blocks_upkeep() returns trigger language plpgsql as $$
        declare
          old_block text := null; old_active integer := 0; new_block text := null; new_active integer := 0;
        begin
          if tg_op <> 'INSERT' then
            old_block := ${blockOf('old.apellido_norm')};
            old_active := case when old.activo_desde is not null then 1 else 0 end;
          end if;
          if tg_op <> 'DELETE' then
            new_block := ${blockOf('new.apellido_norm')};
            new_active := case when new.activo_desde is not null then 1 else 0 end;
          end if;
          update patient_list_blocks
            set n_all = n_all + case when start_key = new_block then 1 else 0 end - case when start_key = old_block then 1 else 0 end,
                n_active = n_active + case when start_key = new_block then new_active else 0 end - case when start_key = old_block then old_active else 0 end
            where start_key = old_block or start_key = new_block;
          return null;
        end $$`,
      )
      .execute(db);
    await sql`create trigger patient_list_blocks_upkeep after insert or delete on patients
      for each row execute function patient_list_blocks_upkeep()`.execute(db);
    await sql`create trigger patient_list_blocks_move after update of apellido_norm, activo_desde on patients
      for each row when (old.apellido_norm is distinct from new.apellido_norm or (old.activo_desde is null) <> (new.activo_desde is null))
      execute function patient_list_blocks_upkeep()`.execute(db);
    return;
  }
  const add = (row: 'new' | 'old', sign: '+' | '-') =>
    `update patient_list_blocks set n_all = n_all ${sign} 1, n_active = n_active ${sign} (${row}.activo_desde is not null)
      where start_key = ${blockOf(`${row}.apellido_norm`)};`;
  await sql.raw(`create trigger patient_list_blocks_insert after insert on patients begin ${add('new', '+')} end`).execute(db);
  await sql.raw(`create trigger patient_list_blocks_delete after delete on patients begin ${add('old', '-')} end`).execute(db);
  await sql
    .raw(
      `create trigger patient_list_blocks_move after update of apellido_norm, activo_desde on patients
      when old.apellido_norm is not new.apellido_norm or (old.activo_desde is null) <> (new.activo_desde is null)
      begin ${add('old', '-')} ${add('new', '+')} end`,
    )
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger patient_list_blocks_upkeep on patients`.execute(db);
    await sql`drop trigger patient_list_blocks_move on patients`.execute(db);
    await sql`drop function patient_list_blocks_upkeep()`.execute(db);
  } else {
    await sql`drop trigger patient_list_blocks_insert`.execute(db);
    await sql`drop trigger patient_list_blocks_delete`.execute(db);
    await sql`drop trigger patient_list_blocks_move`.execute(db);
  }
  await db.schema.dropTable('patient_list_blocks').execute();
}
