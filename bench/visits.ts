// The agenda's visits for the generator (issue 28; decision 0145). Each cycle gets the plan the application gives it
// when it opens (the program's edition in force on the cycle's start: editionInForce and planVisits of
// src/agenda/agenda.rules.ts), and each visit then lives the life a clinic gives it up to today:
//  - due before today (and before its cycle stopped): booked on its due day or the next days with a professional
//    (and, when free, a room or device), then attended (90 %) or missed (10 %); a missed one of a cycle is re-booked
//    (an unplanned visit of the same kind 7 to 14 days later) six times in ten; of the last 60 days, 6 % still wait
//    to be booked (overdue);
//  - due in the next three weeks of an ACTIVO cycle: booked (80 % of the first week's, 60 % of the second's, 40 % of
//    the third's), the rest due;
//  - not yet happened when its cycle was suspended or terminated: moved as visitsFollowingCycle says (paused,
//    cancelled with the cycle's motivo).
// Booked and attended visits never overlap for a professional or a resource: a day's quarter hours are handed out
// here (Schedule), and the database's guard checks every row as it is inserted.

import { sql, type Kysely } from 'kysely';
import { CYCLE_MOTIVO, editionInForce, hhmm, minutesOfDay, planVisits, startMinute, visitsFollowingCycle, type PlanLine } from '../src/agenda/agenda.rules.js';
import type { Booking } from '../src/agenda/agenda.repository.js';
import { intBetween, type Random } from './synthetic.js';
import type { Value } from './writer.js';

export const CITA_COLUMNS = [
  'id', 'paciente_id', 'ingreso_id', 'tipo', 'estado', 'plan_visita_id', 'vence_el', 'fecha', 'hora', 'duracion_min',
  'inicio_min', 'fin_min', 'profesional_id', 'recurso_id', 'exam_record_id', 'motivo', 'recordado_at', 'recordado_por',
  'created_at', 'updated_at',
] as const;
export const CITA_HISTORIAL_COLUMNS = ['id', 'cita_id', 'at', 'user_id', 'desde', 'hacia', 'detalle'] as const;

type Estado = 'PENDIENTE' | 'AGENDADA' | 'ATENDIDA' | 'NO_ASISTIO' | 'CANCELADA' | 'PAUSADA';
type CycleEstado = 'ACTIVO' | 'SUSPENDIDO' | 'TERMINADO';

/** Which resources a kind of visit may hold, by name (the seed's rooms and devices); others hold none. */
const RESOURCES_OF: Record<string, readonly string[]> = {
  PSG_BASAL: ['Sala de polisomnografía', 'Polígrafo 1'],
  PSG_CONTROL: ['Sala de polisomnografía', 'Polígrafo 1'],
  TITULACION_CPAP: ['Sala de polisomnografía', 'CPAP de préstamo 1'],
  CONSULTA_INGRESO: ['Consultorio 1', 'Consultorio 2'],
  CONSULTA_CONTROL: ['Consultorio 1', 'Consultorio 2'],
};

/** The plans, kinds and resources of the database, read once. */
export interface AgendaCatalogue {
  editions: Map<string, { vigente_desde: string; lines: PlanLine[] }[]>;
  duracion: Map<string, number>;
  /** resource ids a kind may hold */
  resources: Map<string, number[]>;
  resourceCount: number;
  opens: number;
  closes: number;
}

export async function loadAgendaCatalogue(db: Kysely<any>): Promise<AgendaCatalogue> {
  const planes = await db.selectFrom('agenda_planes').select(['id', 'programa', 'vigente_desde']).execute();
  const lines = await db.selectFrom('agenda_plan_visitas').select(['id', 'plan_id', 'tipo', 'dia', 'repeticiones', 'intervalo_dias']).orderBy('id').execute();
  const editions = new Map<string, { vigente_desde: string; lines: PlanLine[] }[]>();
  for (const p of planes) {
    const own = lines.filter((l) => l.plan_id === p.id).map((l) => ({ id: Number(l.id), tipo: String(l.tipo), dia: Number(l.dia), repeticiones: Number(l.repeticiones), intervalo_dias: Number(l.intervalo_dias) }));
    const list = editions.get(p.programa as string) ?? [];
    list.push({ vigente_desde: String(p.vigente_desde), lines: own });
    editions.set(p.programa as string, list);
  }
  const tipos = await db.selectFrom('agenda_tipos').select(['codigo', 'duracion_min']).execute();
  const recursos = await db.selectFrom('agenda_recursos').select(['id', 'nombre']).where('activo', '=', 1).orderBy('id').execute();
  const byName = new Map(recursos.map((r) => [String(r.nombre), Number(r.id)]));
  const resources = new Map<string, number[]>();
  for (const [tipo, names] of Object.entries(RESOURCES_OF)) resources.set(tipo, names.map((n) => byName.get(n)).filter((id): id is number => id !== undefined));
  const ajustes = (await sql<{ hora_apertura: string; hora_cierre: string }>`select hora_apertura, hora_cierre from agenda_ajustes where id = 1`.execute(db)).rows[0];
  return {
    editions,
    duracion: new Map(tipos.map((t) => [String(t.codigo), Number(t.duracion_min)])),
    resources,
    resourceCount: Math.max(0, ...recursos.map((r) => Number(r.id))),
    opens: minutesOfDay(ajustes?.hora_apertura ?? '07:00')!,
    closes: minutesOfDay(ajustes?.hora_cierre ?? '19:00')!,
  };
}

const DAY_MS = 86_400_000;
const dayOf = (iso: string): number => Date.parse(`${iso}T00:00:00Z`) / DAY_MS;
const isoCache = new Map<number, string>();
const isoOf = (day: number): string => {
  let s = isoCache.get(day);
  if (s === undefined) isoCache.set(day, (s = new Date(day * DAY_MS).toISOString().slice(0, 10)));
  return s;
};

/** A booked visit's place in the agenda: the application's own booking shape. */
export type Slot = Booking;

/**
 * Who is busy when: per day, each professional's and each resource's quarter hours of the clinic's hours. A visit is
 * placed on its day or the next ones (never on a Sunday), at a random free time of a random professional; a resource
 * of its kind is held with it when free then. Quarter hours, so every length of the catalogue (30, 45, 60) fits.
 */
export class Schedule {
  private readonly days = new Map<number, { prof: Uint8Array[]; res: Uint8Array[] }>();
  private readonly quarters: number;
  /** visits that found no free time within a week of their day */
  unplaced = 0;

  constructor(
    private readonly professionals: readonly number[],
    private readonly catalogue: AgendaCatalogue,
  ) {
    this.quarters = Math.floor((catalogue.closes - catalogue.opens) / 15);
  }

  private day(d: number) {
    let x = this.days.get(d);
    if (!x) {
      x = {
        prof: this.professionals.map(() => new Uint8Array(this.quarters)),
        res: Array.from({ length: this.catalogue.resourceCount + 1 }, () => new Uint8Array(this.quarters)),
      };
      this.days.set(d, x);
    }
    return x;
  }

  /** Books a visit of `tipo` on `from` or within the next 7 days; null when every professional is full. */
  place(r: Random, from: string, tipo: string): Slot | null {
    const dur = this.catalogue.duracion.get(tipo) ?? 30;
    const need = Math.ceil(dur / 15);
    const P = this.professionals.length;
    for (let d = dayOf(from), last = d + 7; d <= last; d++) {
      if ((((d + 4) % 7) + 7) % 7 === 0) continue; // 1970-01-01 was a Thursday: (d + 4) % 7 === 0 is a Sunday
      const day = this.day(d);
      const p0 = Math.floor(r() * P);
      const q0 = Math.floor(r() * (this.quarters - need + 1));
      for (let i = 0; i < P; i++) {
        const p = (p0 + i) % P;
        const busy = day.prof[p]!;
        for (let j = 0; j <= this.quarters - need; j++) {
          const q = (q0 + j) % (this.quarters - need + 1);
          if (!free(busy, q, need)) continue;
          fill(busy, q, need);
          let recurso: number | null = null;
          for (const id of this.catalogue.resources.get(tipo) ?? []) {
            if (r() < 0.7 && free(day.res[id]!, q, need)) {
              fill(day.res[id]!, q, need);
              recurso = id;
              break;
            }
          }
          const fecha = isoOf(d);
          const hora = hhmm(this.catalogue.opens + q * 15);
          const inicio = startMinute(fecha, hora);
          return { fecha, hora, duracion_min: dur, inicio_min: inicio, fin_min: inicio + dur, profesional_id: this.professionals[p]!, recurso_id: recurso };
        }
      }
    }
    this.unplaced++;
    return null;
  }
}

const free = (busy: Uint8Array, q: number, need: number): boolean => {
  for (let k = 0; k < need; k++) if (busy[q + k]) return false;
  return true;
};
const fill = (busy: Uint8Array, q: number, need: number): void => {
  for (let k = 0; k < need; k++) busy[q + k] = 1;
};

export interface CycleForVisits {
  id: number;
  fecha_inicio: string;
  estado: CycleEstado;
  /** the day it was suspended or terminated */
  stopped: string | null;
  /** when it was opened, and when it stopped (ISO instants of its history) */
  openedAt: string;
  stoppedAt: string | null;
}

export interface VisitContext {
  today: string;
  userId: number;
  catalogue: AgendaCatalogue;
  schedule: Schedule;
  take: (table: 'citas' | 'cita_historial') => number;
  citas: Value[][];
  historial: Value[][];
}

/** A moment of `date` in the clinic's working hours, as an ISO instant (UTC: the clinic is at UTC−5). */
const instant = (r: Random, date: string): string => `${date}T${String(intBetween(r, 12, 23)).padStart(2, '0')}:${String(intBetween(r, 0, 59)).padStart(2, '0')}:00.000Z`;
const later = (a: string, b: string): string => (a > b ? a : b);

/** The visits of one cycle and their history rows, appended to `ctx.citas` and `ctx.historial`. */
export function generateCycleVisits(r: Random, ctx: VisitContext, pacienteId: number, programa: string, c: CycleForVisits): void {
  const edition = editionInForce(ctx.catalogue.editions.get(programa) ?? [], c.fecha_inicio);
  if (!edition) return;
  // Opened on its start day (the generator's cycles are registered the day they start): nothing is left unplanned.
  const planned = planVisits(edition.lines, c.fecha_inicio, c.fecha_inicio);
  const move = c.estado === 'ACTIVO' ? null : visitsFollowingCycle('ACTIVO', c.estado);
  const horizon = c.stopped ?? ctx.today; // what happened, happened before this day
  const soon = addDaysIso(ctx.today, 21);
  const recent = addDaysIso(ctx.today, -60);

  const emit = (
    v: { tipo: string; plan_visita_id: number | null; vence_el: string | null },
    steps: { hacia: Estado; at: string; slot?: Slot | null; motivo?: string }[],
  ) => {
    const id = ctx.take('citas');
    let desde: Estado | null = null;
    let slot: Slot | null = null;
    let motivo: string | null = null;
    for (const s of steps) {
      if (s.slot !== undefined) slot = s.slot;
      if (s.motivo) motivo = s.motivo;
      const detalle = s.hacia === 'AGENDADA' && slot ? JSON.stringify({ fecha: slot.fecha, hora: slot.hora, duracion_min: slot.duracion_min, profesional_id: slot.profesional_id, recurso_id: slot.recurso_id }) : s.motivo ? JSON.stringify({ motivo: s.motivo }) : null;
      ctx.historial.push([ctx.take('cita_historial'), id, s.at, ctx.userId, desde, s.hacia, detalle]);
      desde = s.hacia;
    }
    const last = steps[steps.length - 1]!;
    // Paused and cancelled visits let their booking go (moveCycleVisits); the others keep it.
    const keep = last.hacia === 'AGENDADA' || last.hacia === 'ATENDIDA' || last.hacia === 'NO_ASISTIO' ? slot : null;
    ctx.citas.push([
      id, pacienteId, c.id, v.tipo, last.hacia, v.plan_visita_id, v.vence_el,
      keep?.fecha ?? null, keep?.hora ?? null, keep?.duracion_min ?? null, keep?.inicio_min ?? null, keep?.fin_min ?? null,
      keep?.profesional_id ?? null, keep?.recurso_id ?? null, null, last.hacia === 'CANCELADA' ? motivo : null, null, null,
      steps[0]!.at, last.at,
    ]);
  };

  /** Booked some days before it, attended or missed on the day; a missed one may be booked again. */
  const happened = (v: { tipo: string; plan_visita_id: number | null; vence_el: string | null }, slot: Slot, created: string, rebook: boolean) => {
    const bookedAt = later(created, instant(r, addDaysIso(slot.fecha, -intBetween(r, 2, 20))));
    const attended = r() < 0.9;
    emit(v, [
      ...(v.plan_visita_id !== null ? [{ hacia: 'PENDIENTE' as const, at: created }] : []),
      { hacia: 'AGENDADA', at: bookedAt, slot },
      { hacia: attended ? 'ATENDIDA' : 'NO_ASISTIO', at: later(bookedAt, `${slot.fecha}T23:30:00.000Z`) },
    ]);
    if (attended || !rebook || r() >= 0.6) return;
    const again = ctx.schedule.place(r, addDaysIso(slot.fecha, intBetween(r, 7, 14)), v.tipo);
    if (!again || again.fecha >= horizon) return; // not before its cycle stopped (or today): left missed
    happened({ tipo: v.tipo, plan_visita_id: null, vence_el: null }, again, later(created, `${slot.fecha}T23:45:00.000Z`), false);
  };

  for (const v of planned) {
    const created = c.openedAt;
    const pending = { hacia: 'PENDIENTE' as const, at: created };
    if (v.vence_el < horizon) {
      // Due while the cycle ran: booked and then attended or missed, unless still waiting (the last 60 days).
      if (c.estado === 'ACTIVO' && v.vence_el >= recent && r() < 0.06) {
        emit(v, [pending]);
        continue;
      }
      const slot = ctx.schedule.place(r, v.vence_el, v.tipo);
      if (slot && slot.fecha < horizon) {
        happened(v, slot, created, true);
        continue;
      }
      if (slot && move === null) {
        // Due before today, booked for today or a day after (the week was full).
        emit(v, [pending, { hacia: 'AGENDADA', at: later(created, instant(r, addDaysIso(ctx.today, -intBetween(r, 1, 10)))), slot }]);
        continue;
      }
      // No time found (or not before the cycle stopped): it waits, and its cycle's change moves it.
      if (move === null) emit(v, [pending]);
      else emit(v, [pending, { hacia: move.to, at: c.stoppedAt!, motivo: CYCLE_MOTIVO[c.estado] }]);
      continue;
    }
    if (move !== null) {
      // Not yet happened when the cycle stopped: paused or cancelled with it (decision 0102).
      emit(v, [pending, { hacia: move.to, at: c.stoppedAt!, motivo: CYCLE_MOTIVO[c.estado] }]);
      continue;
    }
    // ACTIVO, due today or later: the next three weeks mostly booked.
    const ahead = dayOf(v.vence_el) - dayOf(ctx.today);
    const share = v.vence_el > soon ? 0 : ahead < 7 ? 0.8 : ahead < 14 ? 0.6 : 0.4;
    const slot = r() < share ? ctx.schedule.place(r, v.vence_el, v.tipo) : null;
    if (slot) emit(v, [pending, { hacia: 'AGENDADA', at: later(created, instant(r, addDaysIso(ctx.today, -intBetween(r, 0, 10)))), slot }]);
    else emit(v, [pending]);
  }
}

const addDaysIso = (date: string, days: number): string => isoOf(dayOf(date) + days);
