// Which triggers the benchmark's fast load on PostgreSQL skips (bench/generate.ts), derived from where each trigger
// is made: the migrations that create triggers on INSERT export them (INSERT_TRIGGERS, DATE_RULE_TRIGGERS) with
// what they keep, and the table registry generates the version triggers (registryInsertTriggers). Nothing here is a
// copy of a trigger's name: a migration that adds an insert trigger without saying what it keeps leaves the trigger
// unknown, the load falls back to row-by-row, and test/bench-load-triggers.test.ts fails.

import { sql, type Kysely } from 'kysely';
import type { Engine } from '../src/db/connection.js';
import { INSERT_TRIGGERS as EXAM_GUARD } from '../src/db/migrations/20261122_0003_exams.js';
import { INSERT_TRIGGERS as OVERLAP_GUARD } from '../src/db/migrations/20261127_0250_agenda.js';
import { INSERT_TRIGGERS as ACTIVO_DESDE } from '../src/db/migrations/20261122_0010_patients_indexes.js';
import { INSERT_TRIGGERS as ULTIMO_MONITOREO } from '../src/db/migrations/20261122_0021_dashboard_performance.js';
import { INSERT_TRIGGERS as COUNTER_UPKEEP } from '../src/db/migrations/20261125_0070_dashboard_counters.js';
import { DATE_RULE_TRIGGERS } from '../src/db/migrations/20261126_0160_date_rules_on_every_write.js';
import { INSERT_TRIGGERS as WORKLIST_CANDIDATES } from '../src/db/migrations/20261129_0540_agenda_worklist_candidates.js';
import { registryInsertTriggers } from '../src/platform/pages/table-versions.js';
import { EXAM_TABLE } from './exams.js';

/** Tables written without triggers in the fast path. The patients are always inserted with their triggers. */
export const UNTRIGGERED_TABLES: readonly string[] = ['ingresos', EXAM_TABLE, 'ingreso_historial', 'audit_log', 'citas', 'cita_historial'];

/**
 * What the fast load does instead of each kind of trigger it skips (the rows it writes are final):
 *  - `patients.activo_desde`, `patients.ultimo_monitoreo`: written final with the patient; verifyDerived checks them;
 *  - the dashboard's counter tables: recounted from the rows after the load (recount); verifyDerived checks them;
 *  - the worklists' candidates (agenda_por_reagendar, agenda_cpap_ciclos): filled from the rows after the load
 *    (fillWorklistCandidates); verifyDerived checks them;
 *  - `table_versions`, `patient_versions`: counters whose values carry no meaning (decisions 0023, 0049, 0051): a
 *    database made by the generator starts with no page rendered;
 *  - `guard` (records only on an ACTIVO Ingreso) and `date rules` (decision 0063): they only refuse; the slow path
 *    proves the generated rows pass them, and verifyDerived checks every stored row against the date rules.
 * A trigger whose effect is not one of these is not skipped: the load takes the slow path.
 */
export const REPRODUCED_EFFECTS = new Set([
  'patients.activo_desde',
  'patients.ultimo_monitoreo',
  'dashboard_open_counts',
  'dashboard_cycle_counts',
  'dashboard_monitoreo_counts',
  'agenda_por_reagendar',
  'agenda_cpap_ciclos',
  'table_versions',
  'patient_versions',
  'guard',
  'date rules',
]);

interface InsertTrigger {
  table: string;
  name: string;
  effect: string;
}

/** Every trigger on INSERT the migrations and the registry make on `engine`, with what it keeps. */
export function knownInsertTriggers(engine: Engine): InsertTrigger[] {
  const fromMigrations = [...EXAM_GUARD, ...ACTIVO_DESDE, ...ULTIMO_MONITOREO, ...COUNTER_UPKEEP, ...OVERLAP_GUARD, ...WORKLIST_CANDIDATES]
    .map((t): { table: string; name: string | null; effect: string } => ({ table: t.table, name: t.name(engine), effect: t.effect }))
    // A trigger one engine does without (PostgreSQL's overlap guard is a constraint): not there to skip.
    .filter((t): t is InsertTrigger => t.name !== null);
  const dateRules = DATE_RULE_TRIGGERS.filter((t) => t.event === 'insert').map((t) => ({ table: t.table, name: t.name, effect: 'date rules' }));
  return [...fromMigrations, ...dateRules, ...registryInsertTriggers(engine)];
}

/**
 * The insert triggers on the fast path's tables that it skips, as `table.name` → what keeps their effect instead
 * (PostgreSQL's names).
 */
export function skippedInsertTriggers(engine: Engine = 'postgres'): Record<string, string> {
  const known = knownInsertTriggers(engine).filter((t) => UNTRIGGERED_TABLES.includes(t.table) && REPRODUCED_EFFECTS.has(t.effect));
  return Object.fromEntries(known.map((t) => [`${t.table}.${t.name}`, t.effect]));
}

export const SKIPPED_INSERT_TRIGGERS: Readonly<Record<string, string>> = skippedInsertTriggers('postgres');

/** The triggers on INSERT into the fast path's tables that the database holds, as `table.name`, with PostgreSQL's enabled flag. */
export async function insertTriggersOf(db: Kysely<any>, engine: Engine): Promise<{ name: string; enabled: string }[]> {
  if (engine === 'postgres') {
    const rows = await sql<{ name: string; enabled: string }>`
      select c.relname || '.' || t.tgname as name, t.tgenabled as enabled
        from pg_trigger t join pg_class c on c.oid = t.tgrelid
       where not t.tgisinternal and (t.tgtype & 4) <> 0
         and c.relnamespace = current_schema()::regnamespace and c.relname = any(${UNTRIGGERED_TABLES})`.execute(db);
    return rows.rows;
  }
  const rows = await sql<{ name: string; tbl: string; sql: string }>`
    select name, tbl_name as tbl, sql from sqlite_master where type = 'trigger'`.execute(db);
  return rows.rows
    .filter((r) => UNTRIGGERED_TABLES.includes(r.tbl) && /\b(before|after|instead\s+of)\s+insert\b/i.test(r.sql))
    .map((r) => ({ name: `${r.tbl}.${r.name}`, enabled: 'O' }));
}

/**
 * Triggers that fire on INSERT into the tables of the fast path and that the loader does not skip (a new
 * migration's, or one whose effect it cannot reproduce): their effect would be missed, so the load must keep every
 * trigger. Update- and delete-only triggers do not matter (the fast path only inserts); foreign keys are checked
 * after the load instead.
 */
export async function unknownInsertTriggers(db: Kysely<any>, engine: Engine = 'postgres'): Promise<string[]> {
  const skipped = skippedInsertTriggers(engine);
  // An ENABLE REPLICA trigger fires only in the mode the fast path uses: not known either.
  return (await insertTriggersOf(db, engine)).filter((t) => !(t.name in skipped) || t.enabled !== 'O').map((t) => t.name);
}
