// The month's enrolment report per insurer (GET /dashboard/novedades/ and its CSV, issue 27) under npm run bench:
// the page of this month and of the month before for each insurer, then the full CSV of this month for each, one
// after another; the time of each answer (target: under 2 s each at 100,000 patients) and the server's RSS growth.

import type { RssSampler, Session } from './server.js';

const MB = 1024 * 1024;
const TARGET_SECONDS = 2;

export interface NovedadesTiming {
  what: string;
  path: string;
  seconds: number;
  bytes: number;
  /** CSV lines after the heading, or the page's count of enrolled patients */
  rows: number;
}

export interface NovedadesResult {
  status: 'ok' | 'n/a' | 'failed';
  note?: string;
  timings: NovedadesTiming[];
  maxSeconds: number;
  rssGrowthMb: number;
  misses: string[];
}

export const failedNovedades = (note: string): NovedadesResult => ({ status: 'failed', note, timings: [], maxSeconds: 0, rssGrowthMb: 0, misses: [] });

/** 'YYYY-MM' of the month before `mes`. */
function monthBefore(mes: string): string {
  const [y, m] = mes.split('-').map(Number) as [number, number];
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
}

/** Times the report's page (this month and the one before) and CSV (this month) for each insurer. */
export async function runNovedades(session: Session, rss: RssSampler, today: string): Promise<NovedadesResult> {
  const mes = today.slice(0, 7);
  const result: NovedadesResult = { status: 'ok', timings: [], maxSeconds: 0, rssGrowthMb: 0, misses: [] };
  const baseline = rss.mark();
  const requests: { what: string; path: string; csv: boolean }[] = [];
  for (const entidad of ['ENTITY_A', 'ENTITY_B']) {
    requests.push({ what: `page ${mes} ${entidad}`, path: `/dashboard/novedades/?mes=${mes}&entidad_salud=${entidad}`, csv: false });
    requests.push({ what: `page ${monthBefore(mes)} ${entidad}`, path: `/dashboard/novedades/?mes=${monthBefore(mes)}&entidad_salud=${entidad}`, csv: false });
    requests.push({ what: `csv ${mes} ${entidad}`, path: `/dashboard/novedades.csv?mes=${mes}&entidad_salud=${entidad}`, csv: true });
  }
  for (const r of requests) {
    const started = performance.now();
    const res = await fetch(session.base + r.path, { headers: { cookie: session.cookieHeader() }, redirect: 'manual' });
    if (res.status === 404) return { ...result, status: 'n/a', note: 'route missing (404)' };
    if (res.status !== 200) return { ...result, status: 'failed', note: `${r.path} answered ${res.status}` };
    const body = Buffer.from(await res.arrayBuffer());
    const seconds = (performance.now() - started) / 1000;
    rss.sample();
    const text = body.toString('utf8');
    const rows = r.csv
      ? Math.max(0, text.split(/\r?\n/).filter((l) => l.length > 0).length - 1)
      : Number(/data-figure="inscritos"[^>]*><span class="figure-value">(\d+)</.exec(text)?.[1] ?? 0);
    result.timings.push({ what: r.what, path: r.path, seconds: Math.round(seconds * 1000) / 1000, bytes: body.length, rows });
    result.maxSeconds = Math.max(result.maxSeconds, Math.round(seconds * 1000) / 1000);
  }
  result.rssGrowthMb = Math.round(((rss.sincePeak - baseline) / MB) * 10) / 10;
  for (const t of result.timings) if (t.seconds > TARGET_SECONDS) result.misses.push(`${t.what}: ${t.seconds} s > ${TARGET_SECONDS} s`);
  if (result.rssGrowthMb >= 50) result.misses.push(`RSS +${result.rssGrowthMb} MB ≥ 50 MB`);
  return result;
}

/** The figures, one line each, with the verdict. */
export function printNovedades(result: NovedadesResult): void {
  console.log('\nInforme de novedades (GET /dashboard/novedades/ and novedades.csv), one request after another');
  if (result.status !== 'ok') {
    console.log(`  ${result.status === 'n/a' ? 'n/a' : 'FAIL'}: ${result.note}`);
    return;
  }
  for (const t of result.timings) {
    console.log(`  ${t.what.padEnd(28)} ${t.seconds.toFixed(3).padStart(7)} s  ${String(t.rows).padStart(8)} ${t.what.startsWith('csv') ? 'lines' : 'enrolled'}  ${(t.bytes / MB).toFixed(2)} MB  ${t.seconds <= TARGET_SECONDS ? 'met' : 'MISS'}`);
  }
  console.log(`  server RSS +${result.rssGrowthMb} MB; target ≤${TARGET_SECONDS} s each ${result.misses.length === 0 ? 'met' : `MISS (${result.misses.join('; ')})`}`);
}
