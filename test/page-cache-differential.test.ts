// Kept pages are always fresh (decision 0023): random sequences of writes of every kind, and after each one every
// kept page rendered by an instance that keeps pages and by one that renders them anew must be the same HTML
// (apart from the CSRF token). A page that reads a table it does not declare, or a write no version covers,
// fails here. The pages are those the application declares (declaredPages): one declared without its URLs below
// fails the first test, so no kept page can be left out of the comparison.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import type { Db } from '../src/db/database.js';
import { setActiveIngresoFechaInicio, updatePatient } from '../src/patients/patient.writes.repository.js';
import { declaredPages } from '../src/platform/pages/page-cache.js';
import { rowsDifferingFromDefinition } from '../src/db/migrations/20261129_0540_agenda_worklist_candidates.js';
import { addDays } from '../src/shared/dates.js';
import { createPatient, newPatientRow } from './fixtures/patient.fixtures.js';
import {
  createTestContext,
  createUser,
  ENGINE,
  login,
  TestClient,
  type TestContext,
} from './helpers.js';

/** What differs between two renders of one page that no cache could keep: the request's CSRF token. */
const normalize = (html: string): string => html.replace(/name="csrfmiddlewaretoken" value="[^"]*"/g, 'name="csrfmiddlewaretoken" value=""');

const HISTORY = /<section class="card[^"]*" id="historial"[\s\S]*?<\/section>/;
const ROW = /<tr data-audit-id="[^"]*" data-action="([a-z_.]+)">[\s\S]*?<\/tr>/g;

/** The page without its history, and the history's rows of changes (each visit adds a view of its own). */
function split(html: string): { page: string; changes: string[] } {
  const history = HISTORY.exec(html)?.[0] ?? '';
  const changes = [...history.matchAll(ROW)].filter((m) => !/\.view/.test(m[1]!)).map((m) => m[0].replace(/data-audit-id="[^"]*"/, ''));
  return { page: normalize(html.replace(HISTORY, '')), changes };
}

/** Equal texts, or a failure that shows where they part. */
function assertSameText(actual: string, expected: string, message: string): void {
  if (actual === expected) return;
  let i = 0;
  while (i < actual.length && actual[i] === expected[i]) i++;
  assert.fail(`${message}: kept page differs at ${i}\n  kept: …${actual.slice(Math.max(0, i - 80), i + 160)}\n  anew: …${expected.slice(Math.max(0, i - 80), i + 160)}`);
}

type Write =
  | { kind: 'createPatient'; apellido: string; activo: boolean }
  | { kind: 'editPatient'; patient: number; apellido: string; telefono: string }
  | { kind: 'moveStart'; patient: number; day: number }
  | { kind: 'status'; patient: number; to: 'SUSPENDIDO' | 'ACTIVO' | 'TERMINADO' }
  | { kind: 'newCycle'; patient: number }
  | { kind: 'addExam'; patient: number; monitoreo: boolean; day: number }
  | { kind: 'voidExam'; exam: number }
  | { kind: 'userActive'; active: boolean }
  | { kind: 'consent'; patient: number; canal: 'WHATSAPP' | 'SMS' }
  | { kind: 'bookVisit'; patient: number; hour: number }
  | { kind: 'cpapControl'; patient: number; horas: number; noches: number; day: number }
  | { kind: 'changeVisit'; visit: number; change: 'reprogramar' | 'cancelar' | 'atendida' | 'no-asistio'; hour: number; recurso: boolean }
  | { kind: 'nextDay' };

const APELLIDOS = ['Gómez', 'Gonzalez', 'Pérez', 'Zuluaga', 'Álvarez'];

/** What the URLs are made of: the patients the writes go to, and the finished cycles. */
interface World {
  recent: number[];
  finished: { id: number; paciente_id: number }[];
}

/** The URLs of each declared page, by its name, for the data there is now. */
const CASES: Readonly<Record<string, (world: World) => string[]>> = {
  'patients.list': () => ['/patients/', '/patients/?query_search=gonz', '/patients/?mes_filtro=1', '/patients/?query_search=dif&mes_filtro=1&page=2'],
  'ingresos.follow': () => ['/patients/follow', '/patients/follow?query_search=p%C3%A9rez'],
  'exams.list': () => ['/exams/', '/exams/?query_search=zulu'],
  dashboard: () => ['/dashboard/'],
  'agenda.counts': () => ['/dashboard/', ...worklistUrls()],
  'agenda.worklist': () => worklistUrls(),
  // The worklists' links and form, and the professionals their filter is checked against (decision 0265).
  'agenda.worklist.controls': () => worklistUrls(),
  // The professionals and the resources, kept apart for the worklists' filter and the day's heading and form (0310).
  'agenda.profesionales': () => [...worklistUrls(), ...dayOfUrls],
  'agenda.recursos': () => dayOfUrls,
  'agenda.day': () => clinicDayUrls,
  // The whole clinic's days' count, kept apart for their later pages (decision 0340).
  'agenda.days.count': () => clinicDayUrls.filter((url) => url.includes('pagina=')),
  'agenda.day.of': () => dayOfUrls,
  'patients.record': ({ recent }) => recent.map((id) => `/patients/${id}/`),
  'exams.clinical': ({ recent }) => recent.map((id) => `/exams/${id}/`),
};

/** The day and the week of the clinic (agenda.day); today moves. */
const clinicDayUrls = ['/agenda/', '/agenda/?vista=semana', '/agenda/?vista=semana&pagina=2'];
/** The staff member's (user 2) and a resource's (seeded, id 1), with the catalogues of their heading and form (agenda.day.of). */
const dayOfUrls = ['/agenda/?vista=semana&profesional=2', '/agenda/?recurso=1&vista=semana', '/agenda/?profesional=2&recurso=1'];

/** The worklists (decision 0210): the five unfiltered, and filtered by program, insurer and professional; a later page (0330). */
const worklistStaff = { id: 0 };
const worklistUrls = (): string[] => [
  ...['semana', 'vencidas', 'inasistencias', 'sin_proxima', 'cpap'].map((lista) => `/agenda/pendientes/?lista=${lista}`),
  '/agenda/pendientes/?lista=vencidas&programa=PROGRAMA+AOS',
  '/agenda/pendientes/?lista=vencidas&pagina=2',
  '/agenda/pendientes/?lista=cpap&entidad=ENTITY_A',
  `/agenda/pendientes/?lista=inasistencias&profesional=${worklistStaff.id}`,
  `/agenda/pendientes/?lista=semana&programa=PROGRAMA+AOS&profesional=${worklistStaff.id}`,
];

/** Pages rendered on each request, compared all the same: an archived cycle. */
const unkeptPages = ({ finished }: World): string[] => finished.slice(-2).map((i) => `/exams/${i.paciente_id}/ingreso/${i.id}/`);

const writeArb: fc.Arbitrary<Write> = fc.oneof(
  fc.record({ kind: fc.constant('createPatient' as const), apellido: fc.constantFrom(...APELLIDOS), activo: fc.boolean() }),
  fc.record({ kind: fc.constant('editPatient' as const), patient: fc.nat(), apellido: fc.constantFrom(...APELLIDOS), telefono: fc.constantFrom('6071111111', '6072222222') }),
  fc.record({ kind: fc.constant('moveStart' as const), patient: fc.nat(), day: fc.integer({ min: 1, max: 20 }) }),
  fc.record({ kind: fc.constant('status' as const), patient: fc.nat(), to: fc.constantFrom('SUSPENDIDO' as const, 'ACTIVO' as const, 'TERMINADO' as const) }),
  fc.record({ kind: fc.constant('newCycle' as const), patient: fc.nat() }),
  fc.record({ kind: fc.constant('addExam' as const), patient: fc.nat(), monitoreo: fc.boolean(), day: fc.integer({ min: 0, max: 5 }) }),
  fc.record({ kind: fc.constant('voidExam' as const), exam: fc.nat() }),
  fc.record({ kind: fc.constant('userActive' as const), active: fc.boolean() }),
  fc.record({ kind: fc.constant('consent' as const), patient: fc.nat(), canal: fc.constantFrom('WHATSAPP' as const, 'SMS' as const) }),
  fc.record({ kind: fc.constant('bookVisit' as const), patient: fc.nat(), hour: fc.integer({ min: 7, max: 17 }) }),
  fc.record({
    kind: fc.constant('changeVisit' as const),
    visit: fc.nat(),
    change: fc.constantFrom('reprogramar' as const, 'cancelar' as const, 'atendida' as const, 'no-asistio' as const),
    hour: fc.integer({ min: 7, max: 17 }),
    recurso: fc.boolean(),
  }),
  fc.constant({ kind: 'nextDay' as const }),
  fc.record({ kind: fc.constant('cpapControl' as const), patient: fc.nat(), horas: fc.constantFrom(399, 400, 650), noches: fc.constantFrom(6900, 7000, 9000), day: fc.integer({ min: 0, max: 40 }) }),
);

describe(`kept pages equal pages rendered anew after every write (engine=${ENGINE})`, () => {
  let ctx: TestContext;
  let fresh: FastifyInstance;
  let keptClient: TestClient;
  let freshClient: TestClient;
  let staffId: number;
  let adminName: string;
  /** The declarations the kept instance served, in order (its app.pages.get and getOfPatient, observed). */
  const served: string[] = [];

  before(async () => {
    ctx = await createTestContext();
    fresh = await buildApp({
      config: ctx.config,
      db: ctx.db,
      engine: ctx.database.handle.engine,
      clock: ctx.clock,
      logger: false,
      setupToken: null,
      loginAttemptsPerMinute: 100_000,
      keepPages: false,
    });
    await fresh.ready();
    const admin = await createUser(ctx.db, { isAdmin: true });
    // Another member of staff, whose name the clinical views and the follow page show, and who is deactivated.
    staffId = (await createUser(ctx.db)).id;
    worklistStaff.id = staffId;
    // Patients from the start, so pages kept per patient (decision 0049) see writes to others between their visits.
    for (const apellido of ['Gómez', 'Pérez', 'Zuluaga']) await createPatient(ctx.db, { apellido, nombre: 'Dif' }, { fechaInicio: todayOf() });
    const pages = ctx.app.pages;
    const get = pages.get.bind(pages);
    pages.get = ((page, input) => {
      served.push(page.name);
      return get(page, input);
    });
    const getOfPatient = pages.getOfPatient.bind(pages);
    pages.getOfPatient = ((page, input) => {
      served.push(page.name);
      return getOfPatient(page, input);
    });
    // Kept parts read together (the dashboard and the agenda's counts, decision 0220; the worklists' parts, 0265) are
    // served as well, each when the route asks for it.
    const together = pages.together.bind(pages);
    pages.together = (async (parts) => {
      const read = await together(parts);
      return {
        get: (page, input) => {
          served.push(page.name);
          return read.get(page, input);
        },
      };
    }) as typeof pages.together;
    keptClient = new TestClient(ctx.app);
    freshClient = new TestClient(fresh);
    adminName = admin.username;
    await login(keptClient, adminName);
    await login(freshClient, adminName);
    // A cycle opened five weeks ago with its plan: visits overdue and due this week on the worklists from the start.
    const planned = await createPatient(ctx.db, { apellido: 'Agenda', nombre: 'Dif' }, { fechaInicio: null });
    const opened = addDays(todayOf(), -35);
    const openedRes = await freshClient.post(`/patients/ingreso/nuevo/${planned.id}/`, { fecha_inicio: opened });
    assert.equal(openedRes.status, 302);
    await freshClient.get(openedRes.location!); // its one-time message shown
  });

  after(async () => {
    await fresh.close();
    await ctx.close();
  });

  const todayOf = () => ctx.clock.now().toISOString().slice(0, 10);

  async function patientIds(db: Db): Promise<number[]> {
    return (await db.selectFrom('patients').select('id').orderBy('id').execute()).map((r) => r.id);
  }

  /**
   * The patients the writes go to and whose pages are compared after each: a page kept per patient (decision 0049)
   * must change with every write to its patient and show nothing of the writes to the others.
   */
  const recent = (ids: number[]) => ids.slice(-4);

  async function apply(db: Db, w: Write, ids: number[]): Promise<void> {
    const pick = <T>(list: T[], n: number): T | undefined => (list.length === 0 ? undefined : list[n % list.length]);
    const now = ctx.clock.now().toISOString();
    const day = todayOf();
    /** An exam record of the patient's ACTIVO cycle `daysAgo` before today (not before the cycle's start); none without one. */
    const addRecord = async (patient: number, daysAgo: number, fields: Record<string, unknown>): Promise<void> => {
      const id = pick(recent(ids), patient);
      if (id === undefined) return;
      const active = await db.selectFrom('ingresos').select(['id', 'fecha_inicio']).where('paciente_id', '=', id).where('estado', '=', 'ACTIVO').executeTakeFirst();
      if (!active) return;
      const fecha = addDays(day, -daysAgo);
      await db
        .insertInto('exam_records')
        .values({ ingreso_id: active.id, fecha: fecha < active.fecha_inicio ? active.fecha_inicio : fecha, registrado_por: staffId, created_at: now, ...fields } as never)
        .execute();
    };
    switch (w.kind) {
      case 'createPatient':
        await createPatient(db, { apellido: w.apellido, nombre: 'Dif' }, { fechaInicio: w.activo ? day : null });
        return;
      case 'editPatient': {
        const id = pick(recent(ids), w.patient);
        if (id === undefined) return;
        const row = newPatientRow({ apellido: w.apellido, telefono: w.telefono, nombre: 'Dif' });
        const current = await db.selectFrom('patients').select(['documento']).where('id', '=', id).executeTakeFirstOrThrow();
        const { created_at: _c, ...changes } = { ...row, documento: current.documento };
        await updatePatient(db, id, { ...changes, documento_key: current.documento.toUpperCase(), updated_at: now });
        return;
      }
      case 'moveStart': {
        const id = pick(recent(ids), w.patient);
        if (id === undefined) return;
        const fecha = addDays(day, -w.day);
        const last = await db.selectFrom('ingresos').select((eb) => eb.fn.max('fecha_fin').as('f')).where('paciente_id', '=', id).executeTakeFirst();
        if (last?.f && String(last.f) >= fecha) return;
        await db.transaction().execute((trx) => setActiveIngresoFechaInicio(trx, id, fecha, now));
        return;
      }
      case 'status': {
        const id = pick(recent(ids), w.patient);
        if (id === undefined) return;
        const open = await db.selectFrom('ingresos').select(['id', 'estado']).where('paciente_id', '=', id).where('estado', 'in', ['ACTIVO', 'SUSPENDIDO']).executeTakeFirst();
        if (!open || open.estado === w.to) return;
        const fields: Record<string, string> = w.to === 'TERMINADO' ? { fecha_terminacion: day, motivo_estado: 'Alta' } : { motivo_estado: 'Cambio' };
        const res = await keptClient.post(`/patients/ingreso/estado/${open.id}/${w.to}/`, fields);
        assert.equal(res.status, 302, `status change to ${w.to}`);
        await keptClient.get(res.location!); // its one-time message shown
        return;
      }
      case 'newCycle': {
        const id = pick(recent(ids), w.patient);
        if (id === undefined) return;
        const res = await freshClient.post(`/patients/ingreso/nuevo/${id}/`, { fecha_inicio: day });
        assert.equal(res.status, 302, 'new cycle');
        await freshClient.get(res.location!);
        return;
      }
      case 'addExam':
        await addRecord(w.patient, w.day, {
          kind: w.monitoreo ? 'MONITOREO' : 'OTRO',
          ...(w.monitoreo ? { tipo: 'POLIGRAFIA', iah: 1520 } : { nombre_examen: 'Control', resultado: 'Normal' }),
        });
        return;
      case 'voidExam': {
        const exams = (await db.selectFrom('exam_records').select('id').where('anulado_at', 'is', null).orderBy('id').execute()).map((r) => r.id);
        const exam = pick(exams, w.exam);
        if (exam === undefined) return;
        await db.updateTable('exam_records').set({ anulado_at: now, anulado_por: staffId, motivo_anulacion: 'Error' }).where('id', '=', exam).execute();
        return;
      }
      case 'userActive':
        await db.updateTable('users').set({ is_active: w.active ? 1 : 0 }).where('id', '=', staffId).execute();
        return;
      case 'consent': {
        // Given when there is none live, withdrawn when there is: the record page shows each channel's state.
        const id = pick(recent(ids), w.patient);
        if (id === undefined) return;
        const live = await db.selectFrom('contacto_consentimientos').select('id').where('paciente_id', '=', id).where('canal', '=', w.canal).where('retirado_el', 'is', null).executeTakeFirst();
        if (live) await db.updateTable('contacto_consentimientos').set({ retirado_el: day, updated_at: now }).where('id', '=', live.id).execute();
        else await db.insertInto('contacto_consentimientos').values({ paciente_id: id, canal: w.canal, otorgado_el: day, retirado_el: null, registrado_por: staffId, created_at: now, updated_at: now }).execute();
        return;
      }
      case 'bookVisit': {
        // A visit booked today: the clinical view offers it to the exam forms. Refused (no open cycle, the slot
        // taken, a deactivated professional) is a write that changed nothing.
        const id = pick(recent(ids), w.patient);
        if (id === undefined) return;
        const res = await freshClient.post('/agenda/citas/nueva/', {
          patient_id: String(id),
          tipo: 'CONTROL_CPAP',
          fecha: day,
          hora: `${String(w.hour).padStart(2, '0')}:00`,
          duracion_min: '30',
          profesional: String(staffId),
          recurso: '',
        });
        assert.ok(res.status === 302 || res.status === 422, `booking answered ${res.status}`);
        if (res.status === 302) await freshClient.get(res.location!);
        return;
      }
      case 'cpapControl':
        // A CPAP download, adherent or not (4 h on 70 % of nights), recent or older than the 30 days looked at.
        await addRecord(w.patient, w.day, { kind: 'MONITOREO', tipo: 'DESCARGA_CPAP', horas_uso_promedio: w.horas, porcentaje_noches_4h: w.noches });
        return;
      case 'changeVisit': {
        // A booked visit moved (today, perhaps to a resource), cancelled, attended or missed, through its forms.
        const booked = (await db.selectFrom('citas').select('id').where('estado', '=', 'AGENDADA').orderBy('id').execute()).map((r) => r.id);
        const cita = pick(booked, w.visit);
        if (cita === undefined) return;
        const fields: Record<string, string> =
          w.change === 'reprogramar'
            ? { fecha: day, hora: `${String(w.hour).padStart(2, '0')}:30`, duracion_min: '30', profesional: String(staffId), recurso: w.recurso ? '1' : '' }
            : w.change === 'cancelar'
              ? { motivo: 'Lo pidió el paciente' }
              : w.change === 'atendida'
                ? { exam_record_id: '' }
                : {};
        const res = await freshClient.post(`/agenda/citas/${cita}/${w.change}/`, fields);
        assert.ok(res.status === 302 || res.status === 422, `${w.change} answered ${res.status}`);
        if (res.status === 302) await freshClient.get(res.location!);
        return;
      }
      case 'nextDay':
        // Sessions end after 12 hours: the next day starts with a new login.
        ctx.clock.advanceMinutes(24 * 60);
        await login(keptClient, adminName);
        await login(freshClient, adminName);
        return;
    }
  }

  async function worldNow(db: Db): Promise<World> {
    const finished = await db.selectFrom('ingresos').select(['id', 'paciente_id']).where('estado', '=', 'TERMINADO').execute();
    return { recent: recent(await patientIds(db)), finished };
  }

  /** Every kept page the data can show now, and the others. */
  async function pagesNow(db: Db): Promise<string[]> {
    const world = await worldNow(db);
    return [...Object.values(CASES).flatMap((urls) => urls(world)), ...unkeptPages(world)];
  }

  async function assertSame(step: string): Promise<void> {
    for (const url of await pagesNow(ctx.db)) {
      // The kept instance twice: a page kept before the write, then the same page after it.
      const kept = await keptClient.get(url);
      const anew = await freshClient.get(url);
      assert.equal(kept.status, 200, `${url} after ${step}`);
      assert.equal(anew.status, 200, `${url} after ${step}`);
      const a = split(kept.body);
      const b = split(anew.body);
      assertSameText(a.page, b.page, `${url} after ${step}`);
      // The later visit's own view may push the oldest change out of the latest entries shown: one less at most.
      const [longer, shorter] = a.changes.length >= b.changes.length ? [a.changes, b.changes] : [b.changes, a.changes];
      assert.ok(longer.length - shorter.length <= 1, `${url} history after ${step}`);
      assert.deepEqual(longer.slice(0, shorter.length), shorter, `${url} history after ${step}`);
    }
  }

  test('every declared page has its URLs here, and each of them serves that page', async () => {
    const declared = declaredPages().map((p) => p.name);
    assert.ok(declared.length > 0);
    assert.deepEqual(declared.filter((name) => !Object.hasOwn(CASES, name)), [], 'a kept page with no URL in this test');
    assert.deepEqual(Object.keys(CASES).filter((name) => !declared.includes(name)), [], 'URLs of a page no longer declared');
    const world = await worldNow(ctx.db);
    for (const [name, urls] of Object.entries(CASES)) {
      assert.ok(urls(world).length > 0, name);
      for (const url of urls(world)) {
        served.length = 0;
        assert.equal((await keptClient.get(url)).status, 200, url);
        assert.ok(served.includes(name), `${url} serves ${name} (served: ${served.join(', ')})`);
      }
    }
  });

  test('random writes of every kind, each followed by every kept page', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(writeArb, { minLength: 1, maxLength: 8 }), async (writes) => {
        // Kept before: each page is in the cache when the writes begin.
        await assertSame('the start');
        for (const [i, w] of writes.entries()) {
          await apply(ctx.db, w, await patientIds(ctx.db));
          // The worklists' candidates kept by triggers (decision 0260) equal what their definitions compute.
          for (const table of ['agenda_por_reagendar', 'agenda_cpap_ciclos'] as const) {
            assert.equal(await rowsDifferingFromDefinition(ctx.db as never, table), 0, `${table} after write ${i} ${JSON.stringify(w)}`);
          }
          await assertSame(`write ${i} ${JSON.stringify(w)}`);
        }
      }),
      { numRuns: 12, seed: 20261124, endOnFailure: true },
    );
  });
});
