// Item 3: hostile input. Random and adversarial bodies (fast-check, bounded runs) to every POST route and random
// query strings to every GET route of the collected route table: never a 500, never a change from an invalid form.
// Stored-XSS payloads in every text field come back escaped on every page and neutralised in every CSV; SQL
// injection in every search and filter finds nothing and breaks nothing; oversized and non-form bodies are refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { todayIn } from '../../src/shared/dates.js';
import { type Client, type Resp } from './lib/client.js';
import { createReliabilityContext, report, type ReliabilityContext } from './lib/context.js';
import { fillRoute, routesOf, type RouteInfo } from './lib/routes.js';
import { countRows, examForm, fingerprint, patientForm, PATIENT_TEXT_FIELDS, resolveParam, uniqueDocumento, type World } from './lib/world.js';

let ctx: ReliabilityContext;
let client: Client;
let user: { id: number; username: string; password: string };
let routes: RouteInfo[];
/** Every form field name the app's pages use (scraped, so new forms are covered), plus the query names of links. */
const fieldNames = new Set<string>();
/** The names of search and filter parameters: GET forms' fields and the query names of links. */
const queryNames = new Set<string>();
const RUNS = Number(process.env.RELIABILITY_FUZZ_RUNS ?? 12);
const today = () => todayIn(ctx.config.timeZone, ctx.clock.now());

/** Routes that take no input by design: they act on any POST (logging out would also end this test's session). */
// The agenda's one-button actions take no input either: publishing or revoking one's calendar feed, a no-show.
const NO_FORM_ACTIONS = [
  /^\/users\/logout\/?$/,
  /^\/users\/sessions\/end-others\/?$/,
  /\/(deactivate|reactivate)\/?$/,
  /^\/agenda\/calendario\/?$/,
  /^\/agenda\/calendario\/:id\/revocar\/?$/,
  /^\/agenda\/citas\/:id\/no-asistio\/?$/,
];
/** A failed login is recorded (throttling and audit) by design, whatever the body. */
const RECORDS_FAILURES = [/^\/users\/login\/?$/];

const url = (r: RouteInfo, world: World = ctx.world) => fillRoute(r.url, (name, u) => resolveParam(world, name, u));

before(async () => {
  ctx = await createReliabilityContext();
  ({ client, user } = await ctx.loggedIn({ isAdmin: true }));
  routes = routesOf(ctx.app).filter((r) => !r.url.startsWith('/static'));
  for (const r of routes.filter((x) => x.method === 'GET')) {
    const res = await client.get(url(r));
    for (const m of res.body.matchAll(/<(?:input|select|textarea)\b[^>]*\bname="([^"]+)"/g)) fieldNames.add(m[1]!);
    for (const form of res.body.matchAll(/<form\b[^>]*method="get"[\s\S]*?<\/form>/gi)) {
      for (const m of form[0].matchAll(/<(?:input|select|textarea)\b[^>]*\bname="([^"]+)"/g)) queryNames.add(m[1]!);
    }
    for (const href of res.body.matchAll(/href="[^"?]*\?([^"]*)"/g)) {
      for (const m of href[1]!.matchAll(/(?:^|&amp;|&)([A-Za-z_][A-Za-z0-9_]*)=/g)) queryNames.add(m[1]!);
    }
  }
  fieldNames.delete('csrfmiddlewaretoken');
  fieldNames.delete('viewport');
  report(`hostile: ${routes.length} routes; ${fieldNames.size} field names and ${queryNames.size} search/filter names scraped from the pages: ${[...fieldNames].sort().join(' ')} | ${[...queryNames].sort().join(' ')}`);
});
after(async () => ctx.close());

async function ensureLoggedIn(): Promise<void> {
  const res = await client.get('/users/password/');
  if (res.status !== 200) await client.login(user.username, user.password);
}

const ADVERSARIAL = [
  '',
  ' ',
  '1e309',
  '-1e309',
  'NaN',
  '-0',
  'Infinity',
  '0x1F',
  '1_000',
  '99999999999999999999999',
  '-1',
  '1,5,5',
  '١٢',
  '２０２４-０１-０１',
  '2024-02-30',
  '2023-02-29',
  '0000-00-00',
  '9999-12-31',
  '2024-13-01',
  '24-01-01',
  'null',
  '[object Object]',
  '__proto__',
  '\u0000',
  '\u0007bell',
  'a\r\nSet-Cookie: x=1',
  '\u202Eevil',
  '\uFFFD',
  '😴💤',
  '<script>alert(1)</script>',
  "' OR '1'='1",
  'x'.repeat(10_001),
  'y'.repeat(120),
];

const valueArb = fc.oneof(
  fc.constantFrom(...ADVERSARIAL),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer().map(String),
  fc.double().map(String),
);
/** Raw fragments appended to a body: invalid UTF-8 percent-encodings, odd separators, bracket names. */
const rawArb = fc.constantFrom('nombre=%C3%28', '%FF%FE=1', 'a=%E0%80%80', '=', '&&', 'a', 'a[b]=1', 'a[]=1', '__proto__=x', 'constructor[prototype][x]=1', '%', 'x=%zz', 'x=%C3');

function fieldArb(): fc.Arbitrary<string> {
  return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...fieldNames) }, { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) });
}

function encodePairs(pairs: [string, string][], raw: string[]): string {
  return [...pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`), ...raw].join('&');
}

describe('hostile input', () => {
  test('stored XSS payloads in every text field are escaped on every page and neutralised in every CSV', async () => {
    const payloads = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "'><svg onload=alert(1)>", '=HYPERLINK("http://x.example","c")', '+SUM(1+1)', '@cmd', '-1+2'];
    const refused: string[] = [];
    const stored: { patientId: number; ingresoId: number }[] = [];
    for (const [i, payload] of payloads.entries()) {
      const form = patientForm({ documento: `${payload.slice(0, 12)}${i}${uniqueDocumento('').slice(-5)}`.slice(0, 20) });
      for (const f of PATIENT_TEXT_FIELDS) if (f !== 'documento') form[f] = f === 'telefono' || f === 'celular' ? payload.slice(0, 20) : payload;
      let res = await client.post('/patients/create/', form);
      if (res.status === 200) {
        // Fields that refuse the payload keep a plain value (refusing it is safe too); the others keep it.
        for (const f of PATIENT_TEXT_FIELDS) {
          // By the message beside the field: an attribute holding the payload may contain '>' (preact leaves it).
          if (new RegExp(`id="error_${f}"`).test(res.body)) {
            refused.push(`${f}:${payload.slice(0, 10)}`);
            form[f] = f === 'documento' ? uniqueDocumento('X') : patientForm()[f]!;
          }
        }
        res = await client.post('/patients/create/', form);
      }
      assert.equal(res.status, 302, `create with payload ${payload}: ${res.status}`);
      const row = await ctx.db.selectFrom('patients').innerJoin('ingresos', 'ingresos.paciente_id', 'patients.id').select(['patients.id', 'ingresos.id as ingreso_id']).where('documento_key', '=', form.documento!.trim().toUpperCase()).executeTakeFirstOrThrow();
      stored.push({ patientId: row.id, ingresoId: row.ingreso_id });
      for (const kind of ['monitoreo', 'psicologia', 'otros'] as const) {
        const exam = examForm(kind, today(), { observaciones: payload, ...(kind === 'otros' ? { nombre_examen: payload, resultado: payload } : {}) });
        assert.equal((await client.post(`/exams/${row.id}/${kind}/`, exam)).status, 302);
      }
      if (i % 2 === 0) {
        await client.post(`/patients/ingreso/estado/${row.ingreso_id}/TERMINADO/`, { fecha_terminacion: today(), motivo_estado: payload });
        await client.post(`/patients/ingreso/nuevo/${row.id}/`, { fecha_inicio: today() });
      }
    }
    // Every GET page of the table, with ids of the stored records and searches for the payloads.
    let pages = 0;
    let csvs = 0;
    let cells = 0;
    const problems: string[] = [];
    const mes = today().slice(0, 7);
    for (const r of routes.filter((x) => x.method === 'GET')) {
      for (const s of stored) {
        const world: World = { ...ctx.world, patientId: s.patientId, ingresoId: s.ingresoId };
        for (const q of ['', '?page=1', `?mes=${mes}`, ...payloads.map((p) => `?query_search=${encodeURIComponent(p.slice(0, 8))}`)]) {
          const target = url(r, world) + q;
          const res = await client.get(target);
          const type = String(res.headers['content-type'] ?? '');
          if (type.includes('text/csv')) {
            csvs++;
            for (const cell of csvCells(res.body)) {
              cells++;
              if (/^[=+\-@\t\r]/.test(cell)) problems.push(`${target}: CSV cell starts a formula: ${cell.slice(0, 40)}`);
            }
          } else if (type.includes('text/html')) {
            pages++;
            for (const p of payloads) if (/[<>"']/.test(p) && res.body.includes(p)) problems.push(`${target}: unescaped ${p}`);
          }
        }
        if (!r.url.includes(':')) break;
      }
    }
    report(`XSS: ${payloads.length} payloads stored in ${PATIENT_TEXT_FIELDS.length} patient fields, exam texts and motivo; ${pages} HTML pages and ${csvs} CSV answers (${cells} cells) checked; fields that refused a payload: ${refused.length ? refused.join(', ') : 'none'}; problems: ${problems.length ? problems.slice(0, 5).join(' | ') : 'none'}`);
    assert.ok(csvs > 0, 'at least one CSV export was checked');
    assert.deepEqual(problems, []);
  });

  test('SQL injection in every search and filter finds nothing and breaks nothing', async () => {
    const injections = ["' OR '1'='1", "' OR 1=1 --", "'; DROP TABLE patients; --", '" OR ""="', "1) OR (1=1", '\\', "%' UNION SELECT username, password_hash FROM users --", '1; select pg_sleep(5)'];
    const patientsBefore = await countRows(ctx.db, 'patients');
    const usersBefore = await countRows(ctx.db, 'users');
    let requests = 0;
    const problems: string[] = [];
    const listRoutes = routes.filter((r) => r.method === 'GET' && !r.url.includes(':'));
    // What each page shows for a search that matches nothing (pages that ignore query_search show their usual rows).
    const baseline = new Map<string, number>();
    for (const r of listRoutes) baseline.set(r.url, ((await client.get(`${url(r)}?query_search=zzqqxxnadie`)).body.match(/data-patient-id=/g) ?? []).length);
    for (const r of listRoutes) {
      for (const name of [...queryNames]) {
        for (const inj of injections) {
          const res = await client.get(`${url(r)}?${encodeURIComponent(name)}=${encodeURIComponent(inj)}`);
          requests++;
          if (res.status >= 500) problems.push(`${r.url}?${name}=${inj}: ${res.status}`);
          if (name === 'query_search' && (res.body.match(/data-patient-id=/g) ?? []).length > (baseline.get(r.url) ?? 0)) {
            problems.push(`${r.url}?query_search=${inj}: more patients than a search matching nothing`);
          }
          if (res.body.includes('scrypt$')) problems.push(`${r.url}?${name}=${inj}: a password hash leaked`);
        }
      }
    }
    // A literal % or _ matches only itself: they are not wildcards.
    for (const r of listRoutes) {
      for (const lit of ['%', '_', '%%%', '_%_']) {
        const res = await client.get(`${url(r)}?query_search=${encodeURIComponent(lit)}`);
        if ((res.body.match(/data-patient-id=/g) ?? []).length > (baseline.get(r.url) ?? 0)) problems.push(`${r.url}?query_search=${lit} matched patients as a wildcard`);
      }
    }
    assert.equal(await countRows(ctx.db, 'patients'), patientsBefore);
    assert.equal(await countRows(ctx.db, 'users'), usersBefore);
    report(`SQL injection: ${requests} requests (${listRoutes.length} GET routes × ${queryNames.size} parameters × ${injections.length} payloads); problems: ${problems.length ? problems.slice(0, 5).join(' | ') : 'none'}`);
    assert.deepEqual(problems, []);
  });

  test('random bodies to every POST route: never a 500; an invalid form (unknown, repeated or control-character fields) changes nothing', async () => {
    const posts = routes.filter((r) => r.method === 'POST');
    const statusArb = fc.constantFrom('ACTIVO', 'SUSPENDIDO', 'TERMINADO', 'terminado', 'X', '%C3%28', '..');
    let total = 0;
    const outcomes: Record<number, number> = {};
    for (const r of posts) {
      const noForm = NO_FORM_ACTIONS.some((re) => re.test(r.url));
      if (/logout/.test(r.url)) continue;
      const recordsFailures = RECORDS_FAILURES.some((re) => re.test(r.url));
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(fieldArb(), valueArb), { maxLength: 8 }),
          fc.array(rawArb, { maxLength: 2 }),
          fc.constantFrom('unknown', 'repeated', 'control', 'none'),
          statusArb,
          async (pairs, raw, poison, status) => {
            await ensureLoggedIn();
            const body: [string, string][] = [...pairs];
            if (poison === 'unknown') body.push([`campo_desconocido_${pairs.length}`, 'x']);
            if (poison === 'repeated') body.push(['fecha_inicio', '2026-01-01'], ['fecha_inicio', '2026-01-02'], ['nombre', 'a'], ['nombre', 'b'], ['password', 'a'], ['password', 'b']);
            if (poison === 'control') body.push(...[...fieldNames].slice(0, 40).map((f): [string, string] => [f, 'a\u0000b']));
            const target = fillRoute(r.url, (name, u) => resolveParam(ctx.world, name, u, status));
            const before = poison !== 'none' && !noForm ? await fingerprint(ctx.db, recordsFailures ? ['audit_log', 'login_failures'] : []) : null;
            const res = await client.postRaw(target, encodePairs(body, raw));
            total++;
            outcomes[res.status] = (outcomes[res.status] ?? 0) + 1;
            assert.ok(res.status < 500, `POST ${target} → ${res.status}: ${encodePairs(body, raw).slice(0, 300)}`);
            if (before) assert.deepEqual(await fingerprint(ctx.db, recordsFailures ? ['audit_log', 'login_failures'] : []), before, `POST ${target} changed data with an invalid form: ${encodePairs(body, raw).slice(0, 300)}`);
          },
        ),
        { numRuns: RUNS },
      );
    }
    // Raw bytes that are not UTF-8 at all, to every POST route.
    for (const r of posts.filter((x) => !/logout/.test(x.url))) {
      const res = await client.postRaw(url(r), Buffer.from([0x6e, 0x6f, 0x6d, 0x62, 0x72, 0x65, 0x3d, 0xff, 0xfe, 0xc3, 0x28, 0x26, 0x78, 0x3d, 0x80]));
      assert.ok(res.status < 500, `raw bytes to ${r.url}: ${res.status}`);
      total++;
    }
    report(`fuzz: ${total} POST bodies to ${posts.length} routes (${RUNS} runs each, plus raw non-UTF-8 bytes); statuses ${JSON.stringify(outcomes)}; no 500, no change from an invalid form`);
  });

  test('random query strings to every GET route: never a 500', async () => {
    const gets = routes.filter((r) => r.method === 'GET');
    let total = 0;
    for (const r of gets) {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(fieldArb(), valueArb), { maxLength: 6 }), fc.array(rawArb, { maxLength: 2 }), async (pairs, raw) => {
          const target = `${url(r)}?${encodePairs(pairs, raw)}`;
          const res = await client.get(target);
          total++;
          assert.ok(res.status < 500, `GET ${target.slice(0, 300)} → ${res.status}`);
        }),
        { numRuns: RUNS },
      );
    }
    report(`query fuzz: ${total} GET requests to ${gets.length} routes; no 500`);
  });

  test('bodies over 1 MB get the 413 page; JSON, text and multipart bodies get 415; nothing changes', async () => {
    const before = await fingerprint(ctx.db);
    const posts = routes.filter((r) => r.method === 'POST' && !/logout/.test(r.url));
    const big = `nombre=${'a'.repeat(1024 * 1024 + 10)}`;
    const seen: string[] = [];
    for (const r of posts.filter((x) => !NO_FORM_ACTIONS.some((re) => re.test(x.url)))) {
      const target = url(r);
      const tooBig = await client.postRaw(target, big);
      assert.equal(tooBig.status, 413, `${target}: ${tooBig.status}`);
      assert.match(tooBig.body, /Solicitud demasiado grande/);
      for (const [type, body] of [
        ['application/json', '{"nombre":"x"}'],
        ['text/plain', 'nombre=x'],
        ['multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="nombre"\r\n\r\nx\r\n--xyz--\r\n'],
        ['application/x-www-form-urlencoded; charset=iso-8859-1', 'nombre=%E9'],
      ] as const) {
        const res: Resp = await client.postRaw(target, body, type);
        assert.ok(res.status < 500, `${type} to ${target}: ${res.status}`);
        // The spreadsheet upload takes multipart (decision 0042): without a file it says so (400).
        const expected = type.startsWith('multipart/') && MULTIPART_ROUTES.some((re) => re.test(target)) ? 400 : 415;
        if (!type.startsWith('application/x-www-form-urlencoded')) assert.equal(res.status, expected, `${type} to ${target}: ${res.status}`);
      }
      seen.push(target);
    }
    assert.deepEqual(await fingerprint(ctx.db), before);
    report(`limits: ${seen.length} POST routes (all but the no-form actions) answered 413 to a 1 MB body and 415 to JSON, text and multipart; nothing changed`);
  });
});

/** POST routes that accept multipart/form-data (file uploads). */
const MULTIPART_ROUTES = [/^\/patients\/import\/?$/];

/** The cells of a CSV (; or , separated, double-quoted), unquoted. */
function csvCells(text: string): string[] {
  const body = text.replace(/^\uFEFF/, '');
  const sep = (body.split('\n')[0] ?? '').includes(';') ? ';' : ',';
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (quoted) {
      if (ch === '"' && body[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"' && cell === '') quoted = true;
    else if (ch === sep || ch === '\n') {
      cells.push(cell.replace(/\r$/, ''));
      cell = '';
    } else cell += ch;
  }
  if (cell) cells.push(cell);
  return cells;
}
