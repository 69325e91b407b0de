// The agenda's SQL for contact consent, reminders and calendar feeds (issue 28).
import type { Insertable } from 'kysely';
import type { Database, Executor, Trx } from '../db/database.js';
import { insertRowReturningId, precompiled } from '../platform/writes/prepared.js';

// ---------------------------------------------------------------------------------------------------------
// Contact consent and reminders

/** The patient's consents by channel; compiled once: every uncached record page reads them (issue 30). */
export const listConsents = precompiled((db: Executor, pacienteId: number) =>
  db.selectFrom('contacto_consentimientos').selectAll().where('paciente_id', '=', pacienteId).orderBy('canal').orderBy('id'),
);

export const findLiveConsent = (db: Executor, pacienteId: number, canal: string) =>
  db
    .selectFrom('contacto_consentimientos')
    .selectAll()
    .where('paciente_id', '=', pacienteId)
    .where('canal', '=', canal as 'SMS')
    .where('retirado_el', 'is', null)
    .executeTakeFirst();

export const findConsent = (db: Executor, id: number) => db.selectFrom('contacto_consentimientos').selectAll().where('id', '=', id).executeTakeFirst();

/** The live consents of these patients, as patient id → channels. */
export async function liveChannelsOf(db: Executor, pacienteIds: readonly number[]): Promise<Map<number, Set<string>>> {
  const out = new Map<number, Set<string>>();
  if (pacienteIds.length === 0) return out;
  const rows = await db
    .selectFrom('contacto_consentimientos')
    .select(['paciente_id', 'canal'])
    .where('paciente_id', 'in', pacienteIds)
    .where('retirado_el', 'is', null)
    .execute();
  for (const r of rows) (out.get(r.paciente_id) ?? out.set(r.paciente_id, new Set()).get(r.paciente_id)!).add(r.canal);
  return out;
}

/** The visits booked on a day, with what their reminder says. */
export const listRemindersOn = (db: Executor, fecha: string) =>
  db
    .selectFrom('citas as c')
    .innerJoin('patients as p', 'p.id', 'c.paciente_id')
    .innerJoin('agenda_tipos as t', 't.codigo', 'c.tipo')
    .leftJoin('users as u', 'u.id', 'c.recordado_por')
    .select(['c.id', 'c.paciente_id', 'c.hora', 'c.fecha', 'c.recordado_at', 'p.nombre', 'p.apellido', 'p.celular', 'p.telefono', 't.nombre as tipo_nombre', 't.indicaciones', 'u.username as recordado_por'])
    .where('c.fecha', '=', fecha)
    .where('c.estado', '=', 'AGENDADA')
    .orderBy('c.hora')
    .orderBy('c.id')
    .limit(1000)
    .execute();

// ---------------------------------------------------------------------------------------------------------
// Calendar feeds

export const findLiveFeedByHash = (db: Executor, tokenHash: string) =>
  db.selectFrom('agenda_feeds').select(['id', 'user_id']).where('token_hash', '=', tokenHash).where('revocado_at', 'is', null).executeTakeFirst();

export const listFeedsOf = (db: Executor, userId: number) =>
  db.selectFrom('agenda_feeds').select(['id', 'created_at', 'revocado_at']).where('user_id', '=', userId).orderBy('id', 'desc').limit(20).execute();

/** A professional's booked visits from `desde` to `hasta` (minutes), for the feed: initials and kind only. */
export const listFeedVisits = (db: Executor, userId: number, desde: number, hasta: number) =>
  db
    .selectFrom('citas as c')
    .innerJoin('patients as p', 'p.id', 'c.paciente_id')
    .innerJoin('agenda_tipos as t', 't.codigo', 'c.tipo')
    .leftJoin('agenda_recursos as r', 'r.id', 'c.recurso_id')
    .select(['c.id', 'c.fecha', 'c.hora', 'c.duracion_min', 'c.estado', 'c.updated_at', 'p.nombre', 'p.apellido', 't.nombre as tipo_nombre', 'r.nombre as recurso'])
    .where('c.profesional_id', '=', userId)
    .where('c.inicio_min', '>=', desde)
    .where('c.inicio_min', '<', hasta)
    .where((eb) => eb.or([eb('c.estado', '=', 'AGENDADA'), eb('c.estado', '=', 'ATENDIDA')]))
    .orderBy('c.inicio_min')
    .limit(500)
    .execute();

export const insertConsent = (trx: Trx, row: Insertable<Database['contacto_consentimientos']>) => insertRowReturningId(trx, 'contacto_consentimientos', row);

export const markConsentWithdrawn = (trx: Trx, id: number, retiradoEl: string, now: string) =>
  trx.updateTable('contacto_consentimientos').set({ retirado_el: retiradoEl, updated_at: now }).where('id', '=', id).where('retirado_el', 'is', null).execute();

export const insertFeed = (trx: Trx, row: Insertable<Database['agenda_feeds']>) => insertRowReturningId(trx, 'agenda_feeds', row);

export async function markFeedRevoked(trx: Trx, id: number, userId: number, now: string): Promise<boolean> {
  const r = await trx.updateTable('agenda_feeds').set({ revocado_at: now }).where('id', '=', id).where('user_id', '=', userId).where('revocado_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
