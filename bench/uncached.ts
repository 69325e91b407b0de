// What staff really request (issue 30): each record opened by one person, once; searches different every time;
// list pages anywhere in the list. The scenarios here spread their requests over the whole data, so the kept-page
// cache mostly misses (each prints its hit rate): they measure a page's own cost. The fixed-URL scenarios of
// scenarios.ts stay as the "kept" figures.
//
// Each run (warm-up, measured run) takes the next slice of its pool, so a measured run does not ask for what the
// warm-up just rendered. wrk drives them all (GETs of a list of paths; bench/wrk.ts).

import type { Kysely } from 'kysely';
import type { Scenario } from './scenarios.js';
import type { Session } from './server.js';
import { rng, type Random } from './synthetic.js';

/** Paths a run takes at most: enough at ~6,000 requests a second for 12 s without coming round again. */
const SLICE = 80_000;

export interface WholeData {
  /** every patient id, shuffled */
  ids: number[];
  /** the searches staff type, distinct, shuffled */
  searches: string[];
  /** the number of pages of each list, from its first page */
  pages: Record<string, number>;
}

const shuffle = <T>(items: T[], r: Random): T[] => {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
};

const ascii = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

/**
 * The searches of a clinic's front desk, from the people in the database (a patient is looked up by what the
 * person in front of the desk says or shows):
 *  - 40 % the first letters of a surname (4 to 7), as typed, accents sometimes left out;
 *  - 25 % a documento's first digits (6 to the whole number: the card in hand);
 *  - 25 % two words: a given name and the first letters of a surname (3 to 6), "maria rodr";
 *  - 10 % the first letters of a given name (4 to 6) alone.
 */
export function searchesFrom(people: readonly { nombre: string; apellido: string; documento: string }[], r: Random, max = 20_000): string[] {
  const out = new Set<string>();
  const seen = new Set<string>();
  const word = (s: string) => (s.trim().split(/\s+/)[0] ?? '').toLowerCase();
  const fragment = (w: string, min: number, maxLen: number) => {
    const cut = w.slice(0, Math.min(w.length, min + Math.floor(r() * (maxLen - min + 1))));
    return r() < 0.5 ? ascii(cut) : cut;
  };
  for (let i = 0; out.size < max && i < max * 4; i++) {
    const p = people[Math.floor(r() * people.length)]!;
    const x = r();
    let q: string;
    if (x < 0.4) q = fragment(word(p.apellido), 4, 7);
    else if (x < 0.65) q = p.documento.slice(0, Math.min(p.documento.length, 6 + Math.floor(r() * 5)));
    else if (x < 0.9) q = `${ascii(word(p.nombre))} ${fragment(word(p.apellido), 3, 6)}`;
    else q = fragment(word(p.nombre), 4, 6);
    // Distinct as the list sees them (case and accents ignored): two spellings of one search are one page.
    if (q.trim().length >= 3 && !seen.has(ascii(q))) {
      seen.add(ascii(q));
      out.add(q);
    }
  }
  return shuffle([...out], r);
}

/** The lists whose pages the scenarios visit, with the path of their first page. */
const LISTS = { patients: '/patients/', follow: '/patients/follow', exams: '/exams/' } as const;

export async function loadWholeData(db: Kysely<any>, session: Session): Promise<WholeData> {
  const r = rng(30);
  const rows = await db.selectFrom('patients').select(['id', 'nombre', 'apellido', 'documento']).execute();
  const ids = shuffle(rows.map((row) => Number(row.id)), r);
  const people = shuffle(rows.map((row) => ({ nombre: String(row.nombre), apellido: String(row.apellido), documento: String(row.documento) })), r).slice(0, 30_000);
  const pages: Record<string, number> = {};
  for (const [name, first] of Object.entries(LISTS)) {
    const { body, status } = await session.request('GET', first);
    // The link to the last page carries its number.
    pages[name] = status === 200 ? Math.max(1, ...[...body.matchAll(/data-page="(\d+)"/g)].map((m) => Number(m[1]))) : 0;
  }
  return { ids, searches: searchesFrom(people, r, 60_000), pages };
}

/**
 * A pool read a slice at a time, round and round, in an order of its own (two pools over the same patients do not
 * ask for them in the same order, so one scenario does not find what the one before it kept). A pool smaller than
 * a slice comes round again within a run: its hit rate says so.
 */
function slices(make: (i: number) => string, size: number, r: Random): () => string[] {
  const order = shuffle(Array.from({ length: size }, (_, i) => i), r);
  // At most a third of the pool: the probe, the warm-up and the measured run each start where the last stopped.
  const length = Math.min(SLICE, Math.max(1, Math.floor(size / 3)));
  let at = 0;
  return () => {
    const out = Array.from({ length }, (_, k) => make(order[(at + k) % size]!));
    at = (at + length) % size;
    return out;
  };
}

/** Random page numbers (each request its own draw) of a list of `pageCount` pages. */
function randomPages(base: string, pageCount: number, r: Random): () => string[] {
  const sep = base.includes('?') ? '&' : '?';
  return () => Array.from({ length: SLICE }, () => `${base}${sep}page=${1 + Math.floor(r() * pageCount)}`);
}

/**
 * The clinic day: what the front desk and the clinicians ask for, per patient seen. A patient arrives: someone
 * searches for them (1 search), opens the record (1), then the clinical view where the exam is filed (1); now and
 * then a list is paged through (the active list, the follow-up list, the exams list: about one page for every two
 * patients), the history with the views is opened for one patient in ten and the FHIR export for one in fifty.
 * Weights a request: search 27, record 27, clinical 27, lists 13, history 5, FHIR 1. The writes of that day (new
 * patients, exam records, status changes) come from the mixed writer at 5 a second beside it.
 */
export const CLINIC_DAY_WEIGHTS = { search: 27, record: 27, clinical: 27, list: 13, history: 5, fhir: 1 } as const;

const searchPath = (q: string) => `/patients/?query_search=${encodeURIComponent(q).replace(/%20/g, '+')}`;

export function uncachedScenarios(w: WholeData): Scenario[] {
  const r = rng(3030);
  const get = (path: string) => ({ method: 'GET' as const, path });
  const target = { p99: 25, rps: 4000 };
  const listTarget = { p99: 25 };
  const byId = (prefix: string, suffix: string) => slices((i) => `${prefix}${w.ids[i]}${suffix}`, w.ids.length, r);
  const pool = (key: string, name: string, t: Scenario['target'], paths: () => string[]): Scenario => {
    let probe: string[] = [];
    return {
      key,
      name,
      uncached: true,
      target: t,
      expect: 200,
      paths,
      // The probe's one request: a path of a slice of its own.
      next: () => get((probe.length ? probe : (probe = paths())).pop()!),
    };
  };
  const out: Scenario[] = [
    // The floor under every page: the session, the guard, the headers and the answer, without a page's reads or render.
    pool('u-floor', '/healthz/cache: a logged-in request that reads nothing', {}, () => Array.from({ length: SLICE }, () => '/healthz/cache')),
    pool('u-record', '/patients/<id>/ random over every patient', target, byId('/patients/', '/')),
    pool('u-clinical', '/exams/<id>/ random over every patient', target, byId('/exams/', '/')),
    pool('u-history', '/patients/<id>/?consultas=1 random', listTarget, byId('/patients/', '/?consultas=1')),
    pool('u-fhir', '/patients/<id>/fhir/ random', listTarget, byId('/patients/', '/fhir/')),
  ];
  if (w.pages.patients) out.push(pool('u-list', `/patients/?page=N, N random of ${w.pages.patients}`, listTarget, randomPages('/patients/', w.pages.patients, r)));
  if (w.pages.follow) out.push(pool('u-follow', `/patients/follow?page=N, N random of ${w.pages.follow}`, listTarget, randomPages('/patients/follow', w.pages.follow, r)));
  if (w.pages.exams) out.push(pool('u-exams-list', `/exams/?page=N, N random of ${w.pages.exams}`, listTarget, randomPages('/exams/', w.pages.exams, r)));
  out.push(pool('u-search', `?query_search= ${w.searches.length.toLocaleString('en-US')} distinct searches`, listTarget, slices((i) => searchPath(w.searches[i]!), w.searches.length, r)));

  // The clinic day: each request drawn by the weights from the pools above.
  const draw = {
    search: slices((i) => searchPath(w.searches[i]!), w.searches.length, r),
    record: byId('/patients/', '/'),
    clinical: byId('/exams/', '/'),
    history: byId('/patients/', '/?consultas=1'),
    fhir: byId('/patients/', '/fhir/'),
    list: () => {
      const lists = Object.entries(w.pages).filter(([, n]) => n > 0);
      return Array.from({ length: SLICE }, () => {
        const [name, n] = lists[Math.floor(r() * lists.length)]!;
        const base = LISTS[name as keyof typeof LISTS];
        return `${base}?page=${1 + Math.floor(r() * n)}`;
      });
    },
  };
  const total = Object.values(CLINIC_DAY_WEIGHTS).reduce((a, b) => a + b, 0);
  const day = () => {
    const taken = Object.fromEntries(Object.keys(draw).map((k) => [k, draw[k as keyof typeof draw]()]));
    return Array.from({ length: SLICE }, () => {
      let x = r() * total;
      for (const [kind, weight] of Object.entries(CLINIC_DAY_WEIGHTS)) {
        x -= weight;
        if (x < 0) {
          const from = taken[kind]!;
          if (from.length === 0) from.push(...draw[kind as keyof typeof draw]());
          return from.pop()!;
        }
      }
      return taken.record!.pop()!;
    });
  };
  out.push({ ...pool('u-day', 'clinic-day mix, 5 writes/s beside', { p99: 25 }, day), writes: 5 });
  return out;
}
