// The month's RIPS (issue 27) under npm run bench: the page (GET /dashboard/rips/) and the file (GET
// /dashboard/rips.json) of the last whole month for the larger insurer, one after the other. For each: the wall time,
// the server's CPU time, its RSS growth, and the worst latency of /healthz asked over and over by another client
// meanwhile (the generation must leave the event loop to other users). Target: ≤ 10 s each at 100,000 patients.
// `--only rips` runs it alone. The data is first given what RIPS needs (fillRipsFacts), as the generator does.

import os from 'node:os';
import { sql, type Kysely } from 'kysely';
import { cpuSecondsOf, type RssSampler, type Session } from './server.js';

const MB = 1024 * 1024;
const TARGET_SECONDS = 10;
/** A cheap request answered later than this while RIPS runs means the event loop was held. */
const HEALTHZ_TARGET_MS = 250;

/** The synthetic provider: a NIT and a 12-digit REPS site code (never a real one). */
export const BENCH_RIPS_SETTINGS = { nit: '900123456', codigo_prestador: '680010012301' } as const;

/**
 * What a real clinic keys in before its first RIPS, given to a benchmark database where it is still blank: the
 * provider's NIT and REPS code, a catalogue row for the exams outside the program's list, each user's document,
 * each patient's tipo_usuario. Idempotent: only blanks are filled.
 */
export async function fillRipsFacts(db: Kysely<any>): Promise<void> {
  await db.updateTable('rips_settings').set(BENCH_RIPS_SETTINGS).where('id', '=', 1).where('nit', '=', '').execute();
  const otro = await db.selectFrom('rips_catalogue').select('id').where('servicio', '=', 'OTRO').executeTakeFirst();
  if (!otro) {
    await db
      .insertInto('rips_catalogue')
      .values({ servicio: 'OTRO', vigente_desde: '2000-01-01', bloque: 'procedimientos', cups: '891806', cod_servicio: 332, created_at: new Date().toISOString(), created_by: null })
      .execute();
  }
  await db
    .updateTable('users')
    .set({ tipo_documento: 'CC', documento: sql`cast(${sql.lit(63000000)} + id as text)` })
    .where('documento', '=', '')
    .execute();
  // Contributory for most, subsidised for some (RIPS table 01–13); the same patient always gets the same one.
  await db
    .updateTable('patients')
    .set({ tipo_usuario: sql`case when id % 10 < 7 then '01' else '02' end` })
    .where('tipo_usuario', '=', '')
    .execute();
}

export interface RipsTiming {
  what: string;
  path: string;
  status: number;
  seconds: number;
  cpuSeconds: number;
  bytes: number;
  rssGrowthMb: number;
  /** the worst /healthz latency while it ran, and how many were asked */
  healthzMaxMs: number;
  healthzCount: number;
  /** the page's patients and services, or the file's usuarios */
  count: string;
}

export interface RipsResult {
  status: 'ok' | 'n/a' | 'failed';
  note?: string;
  /** the worst /healthz latency with nothing else asked, over as long: what the machine's load alone costs */
  healthzIdleMaxMs: number;
  month: string;
  entidad: string;
  timings: RipsTiming[];
  misses: string[];
}

export const failedRips = (note: string): RipsResult => ({ status: 'failed', note, healthzIdleMaxMs: 0, month: '', entidad: '', timings: [], misses: [] });

/** 'YYYY-MM' of the month before `mes`. */
function monthBefore(mes: string): string {
  const [y, m] = mes.split('-').map(Number) as [number, number];
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
}

/** Asks /healthz one after another until stopped; the worst latency. */
function probeHealthz(base: string): { stop: () => Promise<{ maxMs: number; count: number }> } {
  let running = true;
  let maxMs = 0;
  let count = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${base}/healthz`);
      await res.arrayBuffer();
      maxMs = Math.max(maxMs, performance.now() - started);
      count++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { maxMs: Math.round(maxMs), count };
    },
  };
}

/** Times the RIPS page and file of the last whole month (`today`'s month before) for ENTITY_A. */
export async function runRips(session: Session, rss: RssSampler, serverPid: number, today: string): Promise<RipsResult> {
  const month = monthBefore(today.slice(0, 7));
  const entidad = 'ENTITY_A';
  const idle = probeHealthz(session.base);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const result: RipsResult = { status: 'ok', healthzIdleMaxMs: (await idle.stop()).maxMs, month, entidad, timings: [], misses: [] };
  const requests = [
    { what: 'page', path: `/dashboard/rips/?mes=${month}&entidad_salud=${entidad}` },
    { what: 'file', path: `/dashboard/rips.json?mes=${month}&entidad_salud=${entidad}&factura=FEV1&operacion=CapitaPeriodo` },
  ];
  for (const r of requests) {
    const baseline = rss.mark();
    const cpuBefore = cpuSecondsOf(serverPid);
    const probe = probeHealthz(session.base);
    const started = performance.now();
    const res = await fetch(session.base + r.path, { headers: { cookie: session.cookieHeader() }, redirect: 'manual' });
    const body = Buffer.from(await res.arrayBuffer());
    const seconds = (performance.now() - started) / 1000;
    const cpuSeconds = cpuSecondsOf(serverPid) - cpuBefore;
    const healthz = await probe.stop();
    rss.sample();
    if (res.status === 404) return { ...result, status: 'n/a', note: 'route missing (404)' };
    const text = body.toString('utf8');
    let count = '';
    if (r.what === 'page') {
      const m = /data-rips-patients="(\d+)" data-rips-services="(\d+)"/.exec(text);
      const problems = /data-rips-problems="(\d+)"/.exec(text)?.[1] ?? '?';
      count = m ? `${m[1]} patients, ${m[2]} services, ${problems} problems` : 'no count';
    } else if (res.status === 200) {
      count = `${(text.match(/"consecutivo":\d+,"codPaisOrigen"/g) ?? []).length} usuarios`;
    }
    result.timings.push({
      what: r.what,
      path: r.path,
      status: res.status,
      seconds: Math.round(seconds * 1000) / 1000,
      cpuSeconds: Math.round(cpuSeconds * 100) / 100,
      bytes: body.length,
      rssGrowthMb: Math.round(((rss.sincePeak - baseline) / MB) * 10) / 10,
      healthzMaxMs: healthz.maxMs,
      healthzCount: healthz.count,
      count,
    });
    if (res.status !== 200) return { ...result, status: 'failed', note: `${r.path} answered ${res.status}` };
  }
  for (const t of result.timings) {
    if (t.seconds > TARGET_SECONDS) result.misses.push(`${t.what}: ${t.seconds} s > ${TARGET_SECONDS} s`);
    if (t.healthzMaxMs > HEALTHZ_TARGET_MS) result.misses.push(`${t.what}: /healthz waited ${t.healthzMaxMs} ms > ${HEALTHZ_TARGET_MS} ms`);
  }
  return result;
}

/** The figures, one line each, with the verdict. */
export function printRips(result: RipsResult): void {
  console.log(`\nRIPS of ${result.month} for ${result.entidad} (GET /dashboard/rips/ and rips.json), one after the other, /healthz asked meanwhile`);
  console.log(`  /healthz alone over 3 s first: max ${result.healthzIdleMaxMs} ms; machine load ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs`);
  if (result.status !== 'ok') {
    console.log(`  ${result.status === 'n/a' ? 'n/a' : 'FAIL'}: ${result.note}`);
  }
  for (const t of result.timings) {
    console.log(
      `  ${t.what.padEnd(5)} ${t.seconds.toFixed(2).padStart(7)} s  cpu ${t.cpuSeconds.toFixed(2).padStart(6)} s  RSS +${t.rssGrowthMb} MB  ${(t.bytes / MB).toFixed(2)} MB  ` +
        `healthz max ${t.healthzMaxMs} ms (${t.healthzCount})  ${t.count}  ${t.seconds <= TARGET_SECONDS && t.healthzMaxMs <= HEALTHZ_TARGET_MS ? 'met' : 'MISS'}`,
    );
  }
  if (result.status === 'ok') console.log(`  target ≤${TARGET_SECONDS} s each, /healthz ≤${HEALTHZ_TARGET_MS} ms ${result.misses.length === 0 ? 'met' : `MISS (${result.misses.join('; ')})`}`);
}
