// The benchmark's scenarios (issue 6) and the data they need, read from the benchmark database: shared by
// run.ts (load) and explain.ts (query plans).

import { sql, type Kysely, type SqlBool } from 'kysely';
import { todayIn } from '../src/shared/dates.js';
import { countRows, formatInt } from './common.js';
import type { Session } from './server.js';
import { COMMON_SURNAME_FRAGMENT, RARE_SURNAME_FRAGMENT, TWO_WORDS } from './synthetic.js';

export interface Target {
  p99?: number;
  rps?: number;
  p50Ratio?: number;
}

export interface Request {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

export interface Scenario {
  key: string;
  name: string;
  /** GET list scenarios are also run on the small database by --compare-small */
  list?: boolean;
  target: Target;
  expect: number;
  /** the next request; shared by all connections */
  next: () => Request;
  /**
   * GETs of these paths in turn, the same ones `next` gives (one path: that path every time): wrk can drive the
   * scenario, and autocannon builds a lone path's request once instead of once a request
   */
  getPaths?: readonly string[];
  /**
   * GETs spread over the whole data (bench/uncached.ts): each run (warm-up, measured run) takes these paths, a
   * fresh slice of its pool, in turn.
   */
  paths?: () => readonly string[];
  /** a scenario over the whole data (the uncached figures, which lead the table) */
  uncached?: boolean;
  /** the mixed writer beside it at this many changes a second (the clinic-day mix) */
  writes?: number;
  /** bookings (POST /agenda/citas/nueva/) beside it at this many a second (bench/agenda.ts) */
  bookings?: number;
  /** stop after this many requests (pools that can run out) */
  amount?: () => number;
  warmup?: boolean;
  /**
   * Checks in the database that every 302 did what it should: the change counted there must lie between the
   * 302s received and the requests sent (some were still in flight when autocannon stopped). A problem or null.
   */
  verify?: (ok302: number, sent: number) => Promise<string | null>;
  /** runs before the probe (snapshots, pools); returns why the scenario cannot run, or null */
  before?: () => Promise<string | null>;
}

// ---------------------------------------------------------------------------------------------------------
// Data the scenarios need, read from the benchmark database before the server starts.

export interface Fixtures {
  today: string;
  activeIds: number[];
  documentoPrefix: string;
  /** ACTIVO Ingresos (id, patient) not used by the read scenarios: the pool of terminations */
  terminable: { ingresoId: number; pacienteId: number }[];
  /** next free documento for POST /patients/create/ */
  nextDocumento: number;
  patients: number;
}

export async function loadFixtures(db: Kysely<any>): Promise<Fixtures> {
  const today = todayIn(process.env.TIME_ZONE ?? 'America/Bogota', new Date());
  const patients = await countRows(db, 'patients');
  const active = await db
    .selectFrom('ingresos')
    .select(['id', 'paciente_id'])
    .where('estado', '=', 'ACTIVO')
    .orderBy('id')
    .execute();
  // Spread the read scenarios over 1,000 patients (every n-th), the rest can be terminated.
  const step = Math.max(1, Math.floor(active.length / 1000));
  const activeIds: number[] = [];
  const terminable: Fixtures['terminable'] = [];
  active.forEach((row, i) => {
    if (i % step === 0 && activeIds.length < 1000) activeIds.push(row.paciente_id as number);
    else terminable.push({ ingresoId: row.id as number, pacienteId: row.paciente_id as number });
  });
  // Deterministic shuffle, so terminations hit patients all over the alphabet.
  let seed = 12345;
  for (let i = terminable.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const j = seed % (i + 1);
    [terminable[i], terminable[j]] = [terminable[j]!, terminable[i]!];
  }
  const sample = await db
    .selectFrom('patients')
    .select('documento')
    .where('tipo_documento', '=', 'CC')
    .where('documento', 'like', '1098%')
    .where('id', 'in', activeIds.slice(0, 50).length ? activeIds.slice(0, 50) : [0])
    .limit(1)
    .executeTakeFirst();
  const documentoPrefix = ((sample?.documento as string | undefined) ?? '109812').slice(0, 6);
  // POST /patients/create/ uses ten-digit documentos starting with 5, which the generator never makes.
  const last = await db
    .selectFrom('patients')
    .select('documento_key')
    .where('documento_key', '>=', '5000000000')
    .where('documento_key', '<=', '5999999999')
    .where(sql<SqlBool>`length(documento_key) = 10`)
    .orderBy('documento_key', 'desc')
    .limit(1)
    .executeTakeFirst();
  const nextDocumento = last ? Number(last.documento_key) + 1 : 5_000_000_000;
  return { today, activeIds, documentoPrefix, terminable, nextDocumento, patients };
}

/** Pools are used with this margin: autocannon may prepare a request per connection that it never sends. */
const SLACK = 64;

const rotate = <T>(items: readonly T[]) => {
  let i = 0;
  return () => items[i++ % items.length]!;
};
const get = (p: string): Request => ({ method: 'GET', path: p });

/** The create form of one patient, every field filled as staff would; `extra` adds or replaces fields. */
export function patientFormBody(csrfToken: string, documento: string, fechaNacimiento: string, extra: Record<string, string> = {}): string {
  return new URLSearchParams({
    csrfmiddlewaretoken: csrfToken,
    nombre: 'Benchmark José',
    apellido: 'Peña Muñoz',
    tipo_documento: 'CC',
    documento,
    fecha_nacimiento: fechaNacimiento,
    genero: 'M',
    departamento: 'SANTANDER',
    ciudad: 'BUCARAMANGA',
    zona: 'URBANA',
    telefono: '6076345678',
    celular: '3151234567',
    estado_civil: 'CASADO',
    entidad_salud: 'ENTITY_A',
    estrato: '3',
    peso: '82,5',
    altura: '1,72',
    perimetro_abdominal: '101',
    cuello: '42',
    medico_remitente: 'Dr. Carlos Ardila Rueda',
    especialidad: 'Neumología',
    diagnostico_clinico: 'G47.3',
    programa: 'PROGRAMA AOS',
    valor_capita: '',
    fecha_inicio_programa: '',
    ...extra,
  }).toString();
}

/** The form of POST /patients/create/ for a new patient (each call takes the next free documento). */
export function createPatientBody(f: Fixtures, csrfToken: string): string {
  const documento = String(f.nextDocumento);
  // One name for every created patient, born on a day of its own (25,000 days round); a repeat across runs
  // is confirmed as another person (decision 0043), as staff would.
  const born = new Date(Date.UTC(1930, 0, 1) + (f.nextDocumento++ % 25_000) * 86_400_000).toISOString().slice(0, 10);
  return patientFormBody(csrfToken, documento, born, { es_otra_persona: '1' });
}

export function scenarios(f: Fixtures, db: Kysely<any>, session: Session): Scenario[] {
  const listTarget = { p99: 25, rps: 1500 };
  const searchTarget = { p99: 40 };
  const patientPaths = f.activeIds.map((id) => `/patients/${id}/`);
  const examPaths = f.activeIds.map((id) => `/exams/${id}/`);
  // GETs of these paths in turn (one path: that path every time), which wrk can drive (bench/wrk.ts).
  const inTurn = (paths: readonly string[]) => {
    const nextPath = rotate(paths);
    return { next: () => get(nextPath()), getPaths: paths };
  };

  const createBody = (): string => createPatientBody(f, session.csrfToken);

  // Terminations take ACTIVO Ingresos from the pool; the new-cycle scenario then reopens the patients whose cycle
  // the benchmark terminated (found in the database by the motivo, so a request autocannon prepared but never
  // sent cannot leave a hole in the pool).
  const MOTIVO = 'Alta del programa (benchmark)';
  let terminateAt = 0;
  let reopen: number[] = [];
  let reopenAt = 0;
  const before: Record<string, number> = {};
  const countPatients = () => countRows(db, 'patients');
  const countIngresos = () => countRows(db, 'ingresos');
  const countTerminated = async () =>
    Number(
      (await db.selectFrom('ingresos').select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n')).where('estado', '=', 'TERMINADO').executeTakeFirstOrThrow()).n,
    );
  const delta = async (key: string, q: () => Promise<number>, ok302: number, sent: number, what: string): Promise<string | null> => {
    const d = (await q()) - (before[key] ?? 0);
    return d >= ok302 && d <= sent ? null : `${formatInt(ok302)} redirects (${formatInt(sent)} sent) but ${formatInt(d)} ${what} in the database`;
  };
  const reopenable = async (): Promise<number[]> => {
    const rows = await db
      .selectFrom('ingresos as i')
      .select('i.paciente_id')
      .distinct()
      .where('i.estado', '=', 'TERMINADO')
      .where('i.motivo', '=', MOTIVO)
      .where((eb) =>
        eb.not(eb.exists(eb.selectFrom('ingresos as o').select('o.id').whereRef('o.paciente_id', '=', 'i.paciente_id').where('o.estado', 'in', ['ACTIVO', 'SUSPENDIDO']))),
      )
      .execute();
    return rows.map((r) => r.paciente_id as number);
  };

  const list: Scenario[] = [
    { key: 'list-p1', name: '/patients/ page 1', list: true, target: listTarget, expect: 200, ...inTurn(['/patients/']) },
    { key: 'list-p500', name: '/patients/?page=500', list: true, target: listTarget, expect: 200, ...inTurn(['/patients/?page=500']) },
    { key: 'search-common', name: `?query_search=${COMMON_SURNAME_FRAGMENT} (common surname)`, list: true, target: searchTarget, expect: 200, ...inTurn([`/patients/?query_search=${COMMON_SURNAME_FRAGMENT}`]) },
    { key: 'search-rare', name: `?query_search=${RARE_SURNAME_FRAGMENT} (rare surname)`, list: true, target: searchTarget, expect: 200, ...inTurn([`/patients/?query_search=${RARE_SURNAME_FRAGMENT}`]) },
    { key: 'search-documento', name: `?query_search=${f.documentoPrefix} (documento prefix)`, list: true, target: searchTarget, expect: 200, ...inTurn([`/patients/?query_search=${f.documentoPrefix}`]) },
    { key: 'search-fullname', name: '?query_search=jose perez (nombre apellido)', list: true, target: searchTarget, expect: 200, ...inTurn(['/patients/?query_search=jose+perez']) },
    // Two words found apart (decision 0070): a given name and a surname the generator often puts together.
    { key: 'search-words', name: `?query_search=${TWO_WORDS.replace(' ', '+')} (given name and surname, apart)`, list: true, target: searchTarget, expect: 200, ...inTurn([`/patients/?query_search=${TWO_WORDS.replace(' ', '+')}`]) },
    { key: 'mes-filtro', name: '?mes_filtro=7', list: true, target: listTarget, expect: 200, ...inTurn(['/patients/?mes_filtro=7']) },
    { key: 'search-mes', name: `?query_search=${COMMON_SURNAME_FRAGMENT}&mes_filtro=7`, list: true, target: searchTarget, expect: 200, ...inTurn([`/patients/?query_search=${COMMON_SURNAME_FRAGMENT}&mes_filtro=7`]) },
    { key: 'follow-search', name: `/patients/follow?query_search=${COMMON_SURNAME_FRAGMENT}`, list: true, target: searchTarget, expect: 200, ...inTurn([`/patients/follow?query_search=${COMMON_SURNAME_FRAGMENT}`]) },
  ];
  return [
    ...list,
    { key: 'detail', name: '/patients/<id>/', target: listTarget, expect: 200, ...inTurn(patientPaths) },
    { key: 'exams', name: '/exams/<id>/', target: listTarget, expect: 200, ...inTurn(examPaths) },
    { key: 'dashboard', name: '/dashboard/', target: { p99: 60 }, expect: 200, ...inTurn(['/dashboard/']) },
    {
      key: 'create',
      name: 'POST /patients/create/',
      target: { rps: 500 },
      expect: 302,
      next: () => ({ method: 'POST', path: '/patients/create/', body: createBody() }),
      before: async () => {
        before.create = await countPatients();
        return null;
      },
      verify: (n, sent) => delta('create', countPatients, n, sent, 'patients created'),
    },
    {
      key: 'terminate',
      name: 'POST ingreso/estado/<id>/TERMINADO/',
      target: {},
      expect: 302,
      amount: () => f.terminable.length - terminateAt - SLACK,
      next: () => {
        const t = f.terminable[Math.min(terminateAt++, f.terminable.length - 1)]!;
        return {
          method: 'POST',
          path: `/patients/ingreso/estado/${t.ingresoId}/TERMINADO/`,
          body: new URLSearchParams({ csrfmiddlewaretoken: session.csrfToken, fecha_terminacion: f.today, motivo_estado: MOTIVO }).toString(),
        };
      },
      before: async () => {
        before.terminate = await countTerminated();
        return f.terminable.length === 0 ? 'no ACTIVO Ingreso left to terminate' : null;
      },
      verify: (n, sent) => delta('terminate', countTerminated, n, sent, 'Ingresos terminated'),
    },
    {
      key: 'new-cycle',
      name: 'POST ingreso/nuevo/<id>/ after termination',
      target: {},
      expect: 302,
      amount: () => reopen.length - reopenAt - SLACK,
      next: () => ({
        method: 'POST',
        path: `/patients/ingreso/nuevo/${reopen[Math.min(reopenAt++, reopen.length - 1)]}/`,
        body: new URLSearchParams({ csrfmiddlewaretoken: session.csrfToken, fecha_inicio: f.today }).toString(),
      }),
      before: async () => {
        reopen = await reopenable();
        reopenAt = 0;
        before['new-cycle'] = await countIngresos();
        return reopen.length === 0 ? 'no patient whose cycle the benchmark terminated (run the terminate scenario)' : null;
      },
      verify: (n, sent) => delta('new-cycle', countIngresos, n, sent, 'Ingresos opened'),
    },
  ];
}
