// Crash safety (item 1): the real server under a stream of creates, updates, status changes, new cycles and exam
// records, killed with SIGKILL at random moments and restarted. After each restart every acknowledged change must
// be in the database, no change may be half done, and SQLite must pass integrity_check and foreign_key_check.
//
// Each worker owns its patients, so the changes to one patient are sequential and the expected state is exact:
// the last acknowledged value, or the value of the one request that was in flight when the server died.
import { sql } from 'kysely';
import type { Db } from '../../../src/db/database.js';
import { todayIn } from '../../../src/shared/dates.js';
import { Client, type Resp } from './client.js';
import { createHarnessDatabase, createHarnessUser, say, startServer, type ServerProcess } from './server.js';
import { brokenInvariants, examForm, patientForm, uniqueDocumento } from './world.js';

export interface CrashOptions {
  engine: 'sqlite' | 'postgres';
  rounds: number;
  workers?: number;
  /** Milliseconds of load before the kill: a random moment in [min, max]. */
  minLoadMs?: number;
  maxLoadMs?: number;
  seed?: number;
}

export interface CrashReport {
  rounds: number;
  acknowledged: Record<string, number>;
  unanswered: number;
  problems: string[];
}

type Estado = 'ACTIVO' | 'SUSPENDIDO' | 'TERMINADO';
interface PatientModel {
  id: number;
  documento: string;
  ingresoId: number;
  estado: Estado;
  telefono: string;
  cycles: number;
  exams: number;
}
interface Pending {
  kind: string;
  patient?: PatientModel;
  value?: string;
}

/** A small deterministic generator, so a failing run can be repeated with its seed. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const lastFlash = (res: Resp) => res.flashed.at(-1)?.level;
const succeeded = (res: Resp, location: RegExp) => res.status === 302 && location.test(res.location ?? '') && lastFlash(res) === 'success';

export async function runCrashHarness(options: CrashOptions): Promise<CrashReport> {
  const workers = options.workers ?? 6;
  const seed = options.seed ?? Date.now() % 1_000_000;
  const random = rng(seed);
  const database = await createHarnessDatabase(options.engine);
  const password = 'clave-de-la-prueba-de-caidas';
  await createHarnessUser(database, 'caidas', password);
  const handle = database.open();
  const db = handle.db;
  const acknowledged: Record<string, number> = { create: 0, update: 0, status: 0, cycle: 0, exam: 0 };
  const problems: string[] = [];
  const patients: PatientModel[][] = Array.from({ length: workers }, () => []);
  let unanswered = 0;
  let server: ServerProcess | null = null;
  let cookies: Map<string, string> | null = null;
  say(`crash: engine ${options.engine}, ${options.rounds} rounds, ${workers} workers, seed ${seed}, database ${database.url.replace(/\/\/[^@]*@/, '//')}`);
  try {
    for (let round = 1; round <= options.rounds; round++) {
      server = await startServer(database.url);
      const client = Client.http(server.baseUrl, 10_000);
      if (cookies) {
        for (const [k, v] of cookies) client.cookies.set(k, v);
        // The session lives in the database: it survives the crash.
        const page = await client.get('/dashboard/');
        if (page.status !== 200) problems.push(`round ${round}: the session did not survive the restart (${page.status})`);
      } else {
        await client.login('caidas', password);
      }
      cookies = client.cookies;
      const pending: (Pending | null)[] = Array.from({ length: workers }, () => null);
      let stop = false;
      const before = { ...acknowledged };
      const serverErrors: string[] = [];
      const loop = async (w: number) => {
        // One client per worker (its own connection), sharing the session.
        const c = Client.http(server!.baseUrl, 10_000);
        for (const [k, v] of client.cookies) c.cookies.set(k, v);
        c.csrfToken = client.csrfToken ?? (await client.token());
        // A change refused by a server error (a 500, or a 503 from a conflict) is a failure too, not a quiet skip.
        const post = c.post.bind(c);
        c.post = async (...args: Parameters<Client['post']>) => {
          const res = await post(...args);
          if (res.status >= 500) serverErrors.push(`${res.status} on POST ${args[0]}`);
          return res;
        };
        while (!stop) {
          const op = pickOperation(patients[w]!, random);
          pending[w] = op;
          try {
            await perform(c, op, patients[w]!, acknowledged, db);
            pending[w] = null;
          } catch {
            // No answer: the server died with this request in flight. Its outcome is unknown.
            unanswered++;
            return;
          }
        }
      };
      const running = Array.from({ length: workers }, (_, w) => loop(w));
      const min = options.minLoadMs ?? 800;
      const max = options.maxLoadMs ?? 3000;
      await new Promise((r) => setTimeout(r, min + random() * (max - min)));
      await server.kill('SIGKILL');
      stop = true;
      await Promise.all(running);
      server = null;
      const done = Object.entries(acknowledged).map(([k, v]) => `${k} ${v - (before[k] ?? 0)}`).join(', ');

      // Restart on the same database and verify against the model.
      server = await startServer(database.url);
      // A fresh connection, as a new process sees the database: one that stayed open across the crash can hold a
      // stale FTS5 structure cache (integrity_check then reports fts5 "corruption" that a new connection does not see).
      const fresh = database.open();
      const found = await verify(fresh.db, options.engine, patients.flat(), pending.filter((p): p is Pending => p !== null)).finally(() => fresh.close());
      for (const p of found) problems.push(`round ${round}: ${p}`);
      if (serverErrors.length > 0) {
        found.push(`${serverErrors.length} changes answered with a server error (${[...new Set(serverErrors)].slice(0, 3).join('; ')})`);
        problems.push(`round ${round}: ${found.at(-1)}`);
      }
      say(`crash round ${round}/${options.rounds}: acknowledged ${done}; killed with ${pending.filter(Boolean).length} requests in flight; after restart: ${found.length === 0 ? 'all acknowledged changes present, no half-done change' + (options.engine === 'sqlite' ? ', integrity_check ok' : '') : found.join('; ')}`);
      await resync(db, patients.flat());
      await server.kill('SIGTERM');
      server = null;
    }
  } finally {
    if (server) await server.kill('SIGKILL');
    await handle.close();
    if (problems.length > 0 && database.file) say(`crash: database kept for inspection: ${database.file}`);
    else await database.drop();
  }
  say(`crash: ${options.rounds} rounds; acknowledged ${Object.entries(acknowledged).map(([k, v]) => `${k} ${v}`).join(', ')}; ${unanswered} requests cut by the kill; ${problems.length} problems`);
  return { rounds: options.rounds, acknowledged, unanswered, problems };
}

function pickOperation(own: PatientModel[], random: () => number): Pending {
  const r = random();
  if (own.length < 2 || r < 0.2) return { kind: 'create', value: uniqueDocumento('K') };
  const patient = own[Math.floor(random() * own.length)]!;
  if (patient.estado === 'TERMINADO') return { kind: 'cycle', patient };
  if (r < 0.4) return { kind: 'update', patient, value: String(3000000000 + Math.floor(random() * 999999999)) };
  if (r < 0.6 && patient.estado === 'ACTIVO') return { kind: 'exam', patient };
  if (r < 0.75) return { kind: 'status', patient, value: patient.estado === 'ACTIVO' ? 'SUSPENDIDO' : 'ACTIVO' };
  if (r < 0.85) return { kind: 'status', patient, value: 'TERMINADO' };
  return { kind: 'exam', patient };
}

const todayBogota = () => todayIn('America/Bogota', new Date());

async function perform(c: Client, op: Pending, own: PatientModel[], ack: Record<string, number>, db: Db): Promise<void> {
  const p = op.patient;
  switch (op.kind) {
    case 'create': {
      const res = await c.post('/patients/create/', patientForm({ documento: op.value!, nombre: 'Caída', apellido: `Prueba ${op.value}` }));
      if (succeeded(res, /^\/patients\/$/)) {
        ack.create!++;
        const row = await db
          .selectFrom('patients')
          .innerJoin('ingresos', 'ingresos.paciente_id', 'patients.id')
          .select(['patients.id', 'ingresos.id as ingreso_id', 'patients.telefono'])
          .where('documento_key', '=', op.value!.toUpperCase())
          .executeTakeFirst();
        if (!row) throw new Error(`acknowledged create ${op.value} not readable`);
        own.push({ id: row.id, documento: op.value!, ingresoId: row.ingreso_id, estado: 'ACTIVO', telefono: row.telefono, cycles: 1, exams: 0 });
      }
      return;
    }
    case 'update': {
      const res = await c.post(`/patients/${p!.id}/`, patientForm({ documento: p!.documento, nombre: 'Caída', apellido: `Prueba ${p!.documento}`, telefono: op.value! }));
      if (succeeded(res, new RegExp(`^/patients/${p!.id}/$`))) {
        ack.update!++;
        p!.telefono = op.value!;
      }
      return;
    }
    case 'status': {
      const form = op.value === 'TERMINADO' ? { fecha_terminacion: todayBogota(), motivo_estado: 'Fin del ciclo (prueba de caídas)' } : {};
      const res = await c.post(`/patients/ingreso/estado/${p!.ingresoId}/${op.value}/`, form);
      if (succeeded(res, /^\/patients\/follow/)) {
        ack.status!++;
        p!.estado = op.value as Estado;
      }
      return;
    }
    case 'cycle': {
      const res = await c.post(`/patients/ingreso/nuevo/${p!.id}/`, { fecha_inicio: todayBogota() });
      if (succeeded(res, /^\/patients\/follow/)) {
        ack.cycle!++;
        const row = await db.selectFrom('ingresos').select('id').where('paciente_id', '=', p!.id).where('estado', '=', 'ACTIVO').executeTakeFirst();
        if (!row) throw new Error(`acknowledged new cycle of patient ${p!.id} not readable`);
        p!.ingresoId = row.id;
        p!.estado = 'ACTIVO';
        p!.cycles++;
      }
      return;
    }
    case 'exam': {
      const res = await c.post(`/exams/${p!.id}/monitoreo/`, examForm('monitoreo', todayBogota()));
      if (succeeded(res, new RegExp(`^/exams/${p!.id}/$`))) {
        ack.exam!++;
        p!.exams++;
      }
      return;
    }
  }
}

/** What is wrong in the database compared with the acknowledged changes (empty when all is well). */
async function verify(db: Db, engine: 'sqlite' | 'postgres', model: PatientModel[], inFlight: Pending[]): Promise<string[]> {
  const problems: string[] = [];
  for (const p of model) {
    const row = await db.selectFrom('patients').select(['telefono']).where('id', '=', p.id).executeTakeFirst();
    if (!row) {
      problems.push(`acknowledged patient ${p.documento} (id ${p.id}) is missing`);
      continue;
    }
    const flight = inFlight.find((f) => f.patient === p);
    if (row.telefono !== p.telefono && !(flight?.kind === 'update' && flight.value === row.telefono)) {
      problems.push(`patient ${p.id}: telefono ${row.telefono}, acknowledged ${p.telefono}`);
    }
    const ingreso = await db.selectFrom('ingresos').select(['estado']).where('id', '=', p.ingresoId).executeTakeFirst();
    const estadoInFlight = flight?.kind === 'status' ? flight.value : undefined;
    if (!ingreso) problems.push(`acknowledged Ingreso ${p.ingresoId} of patient ${p.id} is missing`);
    else if (ingreso.estado !== p.estado && ingreso.estado !== estadoInFlight) {
      problems.push(`Ingreso ${p.ingresoId}: estado ${ingreso.estado}, acknowledged ${p.estado}`);
    }
    const cycles = await db.selectFrom('ingresos').select((eb) => eb.fn.countAll<number>().as('n')).where('paciente_id', '=', p.id).executeTakeFirstOrThrow();
    if (Number(cycles.n) < p.cycles) problems.push(`patient ${p.id}: ${cycles.n} Ingresos, ${p.cycles} acknowledged`);
    const exams = await db
      .selectFrom('exam_records')
      .innerJoin('ingresos', 'ingresos.id', 'exam_records.ingreso_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('ingresos.paciente_id', '=', p.id)
      .executeTakeFirstOrThrow();
    if (Number(exams.n) < p.exams) problems.push(`patient ${p.id}: ${exams.n} exam records, ${p.exams} acknowledged`);
  }
  problems.push(...(await brokenInvariants(db)));
  if (engine === 'sqlite') {
    const integrity = (await sql<{ integrity_check: string }>`pragma integrity_check`.execute(db)).rows.map((r) => r.integrity_check).join('; ');
    if (integrity !== 'ok') problems.push(`integrity_check: ${integrity}`);
    const fk = (await sql`pragma foreign_key_check`.execute(db)).rows;
    if (fk.length > 0) problems.push(`foreign_key_check: ${fk.length} rows`);
  }
  return problems;
}

/** After a round, the model takes the database's word for the requests whose answer was lost. */
async function resync(db: Db, model: PatientModel[]): Promise<void> {
  for (const p of model) {
    const row = await db.selectFrom('patients').select('telefono').where('id', '=', p.id).executeTakeFirst();
    if (row) p.telefono = row.telefono;
    const latest = await db.selectFrom('ingresos').select(['id', 'estado']).where('paciente_id', '=', p.id).orderBy('id', 'desc').executeTakeFirst();
    if (latest) {
      p.ingresoId = latest.id;
      p.estado = latest.estado;
    }
    const cycles = await db.selectFrom('ingresos').select((eb) => eb.fn.countAll<number>().as('n')).where('paciente_id', '=', p.id).executeTakeFirstOrThrow();
    p.cycles = Number(cycles.n);
    const exams = await db
      .selectFrom('exam_records')
      .innerJoin('ingresos', 'ingresos.id', 'exam_records.ingreso_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('ingresos.paciente_id', '=', p.id)
      .executeTakeFirstOrThrow();
    p.exams = Number(exams.n);
  }
}
