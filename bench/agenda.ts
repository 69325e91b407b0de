// The agenda's scenarios (issue 28): the day agenda of random days around today (the whole clinic, one
// professional), the week, each worklist of /agenda/pendientes/ with and without filters, and booking under the mixed
// load (POST /agenda/citas/nueva/ at a steady rate beside the agenda's reads and the mixed writer of issue 14).
// The day and week are a kept page (decision 0200, amending 0100): a request draws its day (29 of them), professional
// or page anew, so a run starts by rendering what it asks for and then mostly finds it kept, until a booking or a
// write of the mixed load changes the agenda; the hit rate printed beside each scenario says how often. The whole
// clinic's days are paged (100 visits a page): the week's pages are drawn too. The worklists and their counts are
// kept too (decision 0210): what coordinators request (a-list-coord) and random filters (a-list-filtered, the worst case).
// `npm run bench -- --only agenda` runs them alone.

import { sql, type Kysely } from 'kysely';
import { addDays } from '../src/shared/dates.js';
import type { Fixtures, Scenario } from './scenarios.js';
import type { Session } from './server.js';
import { rng, type Random } from './synthetic.js';

/** Paths a run takes (each drawn anew). */
const SLICE = 80_000;
/** The days the day agenda is asked for: two weeks either side of today. */
const AROUND = 14;
/** Booking under the mixed load: requests a second (beside the mixed writer's 5 changes a second). */
export const BOOKINGS_PER_SECOND = 5;
export const WORKLIST_KINDS = ['semana', 'vencidas', 'inasistencias', 'sin_proxima', 'cpap'] as const;

export interface AgendaData {
  today: string;
  /** the professionals with visits booked around today */
  professionals: number[];
  programas: string[];
  entidades: string[];
  /** the patients of ACTIVO cycles bookings are made for */
  patients: number[];
  /**
   * The bookings' random seed: the database's last visit id added to a constant, so that a run on fresh data books
   * what the last one did, and a run on data a run has already written asks for other slots (the same seed would ask
   * for the slots it booked: every booking refused as an overlap).
   */
  bookingSeed: number;
}

export async function loadAgendaData(db: Kysely<any>, f: Fixtures): Promise<AgendaData | null> {
  const has = await sql<{ n: number }>`select count(*) as n from agenda_tipos`.execute(db).then(
    (r) => Number(r.rows[0]?.n ?? 0) > 0,
    () => false,
  );
  if (!has) return null;
  const from = addDays(f.today, -AROUND);
  const to = addDays(f.today, AROUND);
  const professionals = await db
    .selectFrom('citas')
    .select('profesional_id')
    .distinct()
    .where('fecha', '>=', from)
    .where('fecha', '<=', to)
    .where('profesional_id', 'is not', null)
    .execute();
  const entidades = await db.selectFrom('patients').select('entidad_salud').distinct().execute();
  const lastVisit = await db.selectFrom('citas').select(sql<number | string | null>`max(id)`.as('id')).executeTakeFirst();
  return {
    today: f.today,
    professionals: professionals.map((p) => Number(p.profesional_id)).sort((a, b) => a - b),
    programas: ['PROGRAMA AOS', 'PROGRAMA INSOMNIO'],
    entidades: entidades.map((e) => String(e.entidad_salud)).sort(),
    patients: f.activeIds,
    bookingSeed: 2929 + Number(lastVisit?.id ?? 0),
  };
}

const pickOf = <T>(r: Random, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
const q = (params: Record<string, string>) => new URLSearchParams(params).toString().replace(/%20/g, '+');

/** The agenda's read paths, each request drawn anew. */
function paths(a: AgendaData, r: Random) {
  const day = () => addDays(a.today, Math.floor(r() * (2 * AROUND + 1)) - AROUND);
  const prof = () => String(pickOf(r, a.professionals.length ? a.professionals : [1]));
  const filters = (): Record<string, string> => {
    const out: Record<string, string> = {};
    // Each filter on about half the requests, never none: the filtered lists.
    while (Object.keys(out).length === 0) {
      if (r() < 0.5) out.programa = pickOf(r, a.programas);
      if (r() < 0.5 && a.entidades.length) out.entidad = pickOf(r, a.entidades);
      if (r() < 0.5) out.profesional = prof();
    }
    return out;
  };
  return {
    day: () => `/agenda/?${q({ fecha: day() })}`,
    dayProf: () => `/agenda/?${q({ fecha: day(), profesional: prof() })}`,
    week: () => `/agenda/?${q({ fecha: day(), vista: 'semana', profesional: prof() })}`,
    weekAll: () => `/agenda/?${q({ fecha: day(), vista: 'semana' })}`,
    // A whole clinic's week runs to about 70 pages of 100 at 100,000 patients: any of the first 60.
    weekAllPages: () => `/agenda/?${q({ fecha: day(), vista: 'semana', pagina: String(1 + Math.floor(r() * 60)) })}`,
    worklist: (kind: string) => () => `/agenda/pendientes/?${q({ lista: kind })}`,
    filtered: () => `/agenda/pendientes/?${q({ lista: pickOf(r, WORKLIST_KINDS), ...filters() })}`,
    coordinator: () => {
      const lista = pickOf(r, WORKLIST_KINDS);
      let x = r() * COORDINATOR_TOTAL;
      for (const [who, w] of Object.entries(COORDINATOR_WEIGHTS)) {
        x -= w;
        if (x >= 0) continue;
        if (who === 'programa') return `/agenda/pendientes/?${q({ lista, programa: pickOf(r, a.programas) })}`;
        if (who === 'entidad' && a.entidades.length) return `/agenda/pendientes/?${q({ lista, entidad: pickOf(r, a.entidades) })}`;
        if (who === 'ownList') return `/agenda/pendientes/?${q({ lista, profesional: prof() })}`;
        break;
      }
      return `/agenda/pendientes/?${q({ lista })}`;
    },
  };
}

/**
 * What coordinators request of the worklists, a request's weights (decision 0210): the five lists as the dashboard's
 * links open them, unfiltered (the morning's round); a program's coordinator their program; whoever deals with an
 * insurer (authorisations, capitation) that insurer; a professional their own patients. Each list equally likely.
 */
export const COORDINATOR_WEIGHTS = { unfiltered: 50, programa: 20, entidad: 20, ownList: 10 } as const;
const COORDINATOR_TOTAL = Object.values(COORDINATOR_WEIGHTS).reduce((x, y) => x + y, 0);

/** The agenda day at the desk: what the mix of reads beside the bookings asks for, a request's weights. */
export const AGENDA_MIX_WEIGHTS = { dayProf: 40, day: 15, week: 15, worklist: 15, filtered: 15 } as const;

export function agendaScenarios(a: AgendaData): Scenario[] {
  const r = rng(2828);
  const p = paths(a, r);
  const target = { p99: 40 };
  const pool = (key: string, name: string, make: () => string): Scenario => {
    const many = () => Array.from({ length: SLICE }, make);
    return { key, name, uncached: true, target, expect: 200, paths: many, next: () => ({ method: 'GET', path: make() }) };
  };
  const out: Scenario[] = [
    pool('a-day', `/agenda/?fecha= random day ±${AROUND}, whole clinic`, p.day),
    pool('a-day-prof', `/agenda/?fecha=&profesional= random day and professional`, p.dayProf),
    pool('a-week', '/agenda/?vista=semana&profesional= random week and professional', p.week),
    pool('a-week-all', '/agenda/?vista=semana random week, whole clinic', p.weekAll),
    pool('a-week-all-pages', '/agenda/?vista=semana&pagina= random week and page, whole clinic', p.weekAllPages),
    ...WORKLIST_KINDS.map((k) => pool(`a-list-${k}`, `/agenda/pendientes/?lista=${k}`, p.worklist(k))),
    pool('a-list-coord', '/agenda/pendientes/ what coordinators request', p.coordinator),
    pool('a-list-filtered', '/agenda/pendientes/ random list and filters', p.filtered),
  ];
  const total = Object.values(AGENDA_MIX_WEIGHTS).reduce((x, y) => x + y, 0);
  const mix = () => {
    let x = r() * total;
    for (const [kind, w] of Object.entries(AGENDA_MIX_WEIGHTS)) {
      x -= w;
      if (x < 0) return kind === 'worklist' ? p.worklist(pickOf(r, WORKLIST_KINDS))() : p[kind as 'day'| 'dayProf' | 'week' | 'filtered']();
    }
    return p.dayProf();
  };
  out.push({
    ...pool('a-mix', `agenda reads, ${BOOKINGS_PER_SECOND} bookings/s and 5 writes/s beside`, mix),
    writes: 5,
    bookings: BOOKINGS_PER_SECOND,
  });
  return out;
}

export interface BookingTally {
  rate: number;
  sent: number;
  /** booked (the redirect to the day) */
  ok: number;
  /** refused by the overlap guard, with its message beside the field (422): the expected refusals */
  overlaps: number;
  /** anything else */
  failed: number;
  skipped: number;
  failures: string[];
}

const OVERLAP = /ya tiene otra cita en ese horario|ya está ocupado en ese horario/;
const MAX_IN_FLIGHT = 8;

/**
 * A desk booking `rate` visits a second: a patient of an ACTIVO cycle, a medical control, a random professional of
 * the agenda, a random quarter hour of a working day in the next three weeks. The professionals' days are already
 * booked, so some land on a taken time: the guard refuses them (counted apart from errors).
 */
export class BookingWriter {
  private timer: NodeJS.Timeout | null = null;
  private inFlight = new Set<Promise<void>>();
  private readonly r: Random;
  private at = 0;
  readonly tally: BookingTally;

  constructor(
    private readonly session: Session,
    private readonly a: AgendaData,
    rate: number,
  ) {
    this.tally = { rate, sent: 0, ok: 0, overlaps: 0, failed: 0, skipped: 0, failures: [] };
    this.r = rng(a.bookingSeed);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.fire(), 1000 / this.tally.rate);
  }

  /** The tally so far, a copy. */
  current(): BookingTally {
    return { ...this.tally, failures: [...this.tally.failures] };
  }

  async stop(): Promise<BookingTally> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all(this.inFlight);
    return this.tally;
  }

  private form(): Record<string, string> {
    const r = this.r;
    const quarter = Math.floor(r() * 44); // 07:00 to 17:45, 30 minutes: within 07:00–19:00
    const minutes = 7 * 60 + quarter * 15;
    return {
      csrfmiddlewaretoken: this.session.csrfToken,
      patient_id: String(this.a.patients[this.at++ % this.a.patients.length]),
      tipo: 'CONSULTA_CONTROL',
      fecha: addDays(this.a.today, 1 + Math.floor(r() * 21)),
      hora: `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`,
      duracion_min: '30',
      profesional: String(pickOf(r, this.a.professionals)),
      recurso: '',
    };
  }

  private fire(): void {
    if (this.inFlight.size >= MAX_IN_FLIGHT) {
      this.tally.skipped++;
      return;
    }
    this.tally.sent++;
    const p: Promise<void> = this.session.request('POST', '/agenda/citas/nueva/', this.form()).then(
      (res) => {
        if (res.status === 302) this.tally.ok++;
        else if (res.status === 422 && OVERLAP.test(res.body)) this.tally.overlaps++;
        else this.fail(`POST /agenda/citas/nueva/: ${res.status}`);
      },
      (err: unknown) => this.fail(`POST /agenda/citas/nueva/: ${err instanceof Error ? err.message : String(err)}`),
    );
    const tracked = p.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private fail(what: string): void {
    this.tally.failed++;
    if (this.tally.failures.length < 5) this.tally.failures.push(what);
  }
}
