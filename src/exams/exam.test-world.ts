// The world the exam route tests share: one test context and logged-in client per test file, the patients and
// forms they post, and what they read back. Each test file calls useExamWorld() once at its top.
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { createTestContext, ENGINE, loggedInClient, type TestClient, type TestContext } from '../../test/helpers.js';
import { openIngreso } from '../ingresos/ingreso.repository.js';
import { createPatient } from '../patients/patient.fixtures.js';

// Today is 2026-11-22 in America/Bogota (the TestClock's default instant).
export const TODAY = '2026-11-22';

export let ctx: TestContext;
export let client: TestClient;
export let userId: number;
export let username: string;

/** Registers the file's hooks: the context and client before its tests, and a check that it runs on ENGINE. */
export function useExamWorld(): void {
  before(async () => {
    ctx = await createTestContext();
    const logged = await loggedInClient(ctx);
    client = logged.client;
    userId = logged.user.id;
    username = logged.user.username;
  });
  after(async () => {
    await ctx.close();
  });
  // Any message left queued by an earlier test is shown (and consumed) here.
  beforeEach(async () => {
    await client.get('/exams/');
  });
  test(`exams run on ${ENGINE}`, () => {
    assert.equal(ctx.database.handle.engine, ENGINE);
  });
}

export let seq = 0;
/** A patient with an ACTIVO Ingreso from 2026-09-10 (or none, with fechaInicio null). */
export async function patient(options: { fechaInicio?: string | null; nombre?: string } = {}) {
  seq++;
  const p = await createPatient(
    ctx.db,
    { nombre: options.nombre ?? `Examina${seq}`, apellido: `Clinica${seq}`, peso: 9000, altura: 170 },
    { fechaInicio: options.fechaInicio === undefined ? '2026-09-10' : options.fechaInicio },
  );
  return { id: p.id, ingresoId: p.ingresoId! };
}

export async function terminate(ingresoId: number, fechaFin = '2026-11-20') {
  await ctx.db.updateTable('ingresos').set({ estado: 'TERMINADO', fecha_fin: fechaFin, motivo: 'Fin del ciclo de prueba' }).where('id', '=', ingresoId).execute();
}

export async function newCycle(pacienteId: number, fechaInicio = '2026-11-21') {
  return ctx.db.transaction().execute((trx) => openIngreso(trx, { pacienteId, fechaInicio, userId: null, now: new Date().toISOString() }));
}

/** Posts a form and follows the redirect, so its one-time message does not linger for later assertions. */
export async function add(path: string, form: Record<string, string>) {
  const res = await client.post(path, form);
  if (res.status === 302) await client.follow(res);
  return res;
}

export const recordsOf = (ingresoId: number) => ctx.db.selectFrom('exam_records').selectAll().where('ingreso_id', '=', ingresoId).orderBy('id').execute();

export const auditOf = (action: string, patientId: number) =>
  ctx.db.selectFrom('audit_log').selectAll().where('action', '=', action).where('patient_id', '=', patientId).orderBy('id').execute();

export const MONITOREO = { fecha: '2026-11-15', tipo: 'POLISOMNOGRAFIA', iah: '12,5', saturacion_minima: '84', horas_uso_promedio: '5.5', porcentaje_noches_4h: '80', presion_cmh2o: '9', fuga_lpm: '', observaciones: 'Buena tolerancia' };
export const PSICOLOGIA = { fecha: '2026-11-16', tipo_sesion: 'TCC_I', numero_sesion: '3', isi: '16', epworth: '9', observaciones: '' };
export const OTRO = { fecha: '2026-11-17', nombre_examen: 'Espirometría', resultado: 'Normal', observaciones: '' };

/** The data-exam-id / data-exam-kind pairs of a page's timeline, in page order. */
export function timeline(html: string): { id: number; kind: string; anulado: boolean }[] {
  const out: { id: number; kind: string; anulado: boolean }[] = [];
  const re = /<article[^>]*data-exam-kind="(\w+)" data-exam-id="(\d+)"( data-anulado="true")?/g;
  for (let m = re.exec(html); m; m = re.exec(html)) out.push({ kind: m[1]!, id: Number(m[2]), anulado: Boolean(m[3]) });
  return out;
}

/** The field error shown beside a field of one of the forms (ids are prefixed per form). */
export function fieldError(html: string, prefix: string, field: string): string | null {
  const m = new RegExp(`<p class="field-error" id="error_${prefix}_${field}">([^<]*)</p>`).exec(html);
  return m ? m[1]! : null;
}
