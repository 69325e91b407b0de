import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { VNode } from 'preact';
import { createTestDatabase, createUser, type TestDatabase } from '../../test/helpers.js';
import type { Db } from '../db/database.js';
import { patientVersionReader } from '../platform/pages/table-versions.js';
import { renderFragment } from '../web/render.js';
import { PatientHistoryCache } from './audit.history-cache.js';
import { recordAudit, type AuditListRow } from './audit.repository.js';
import { VIEW_ACTIONS } from './audit.labels.js';
import { AuditRow } from './views/audit-entry.js';
import { PatientHistory } from './views/patient-history.js';

const TZ = 'America/Bogota';
let database: TestDatabase;
let db: Db;
let actor: { id: number; username: string };

before(async () => {
  database = await createTestDatabase();
  db = database.handle.db;
  const user = await createUser(db);
  actor = { id: user.id, username: user.username };
});
after(async () => database.drop());

let second = 0;
/** Writes an entry for the patient, one second after the previous one. */
const write = (patientId: number, action: string, changes: Record<string, unknown> | null = null) =>
  recordAudit(db, { at: new Date(Date.UTC(2026, 10, 1, 12, 0, second++)), actor, action, entityType: 'patient', entityId: patientId, patientId, changes });

/** A view still queued (not written): no id. */
const pendingView = (patientId: number, at: Date): AuditListRow => ({
  id: 0,
  at: at.toISOString(),
  user_id: actor.id,
  username: actor.username,
  action: 'patient.view',
  entity_type: 'patient',
  entity_id: patientId,
  patient_id: patientId,
  changes: null,
});

const markup = (node: VNode) => Buffer.concat(renderFragment(node).parts.map((p) => p ?? Buffer.alloc(0))).toString('utf8');

/** The history section as the patient page shows it. */
async function shown(cache: PatientHistoryCache, patientId: number, limit: number, pending: AuditListRow[] = []) {
  const history = await cache.rows(db, patientId, limit, pending);
  const { parts } = renderFragment(<PatientHistory count={history.count} rows={history.rows} limit={limit} includeViews />);
  const html = Buffer.concat(parts.map((p) => p ?? Buffer.alloc(0))).toString('utf8');
  return { html, actions: [...html.matchAll(/data-action="([^"]+)"/g)].map((m) => m[1]), ids: [...html.matchAll(/data-audit-id="(\d+)"/g)].map((m) => Number(m[1])) };
}

describe("a patient's history on the patient page", () => {
  test('newest first, with the fields before and after, and only that patient', async () => {
    const cache = new PatientHistoryCache(TZ, 1024 * 1024, 'all', 0);
    await write(1, 'patient.create', { telefono: [null, '6070000'] });
    await write(1, 'patient.update', { telefono: ['6070000', '6071111'] });
    await write(2, 'patient.update', { telefono: ['1', '2'] });
    const page = await shown(cache, 1, 10);
    assert.deepEqual(page.actions, ['patient.update', 'patient.create']);
    assert.match(page.html, /<del>6070000<\/del> → <ins>6071111<\/ins>/);
    assert.doesNotMatch(page.html, /Sin registros/);
    assert.match((await shown(cache, 99, 10)).html, /Sin registros en la auditoría/);
  });

  test('scoped to the changes, views are left out (in SQL) however they are interleaved, and the limit counts changes', async () => {
    const cache = new PatientHistoryCache(TZ, 1024 * 1024, 'changes', 0);
    const p = 31;
    await write(p, 'patient.create', { telefono: [null, '1'] });
    for (let i = 0; i < 5; i++) await write(p, 'patient.view');
    await write(p, 'patient.update', { telefono: ['1', '2'] });
    assert.deepEqual((await shown(cache, p, 2)).actions, ['patient.update', 'patient.create']);
    await write(p, 'exam.view_clinical', { ingreso_id: 1, registros: 0 });
    await write(p, 'patient.view');
    await write(p, 'patient.update', { telefono: ['2', '3'] });
    await write(p, 'patient.view');
    const again = await shown(cache, p, 2);
    assert.deepEqual(again.actions, ['patient.update', 'patient.update']);
    assert.deepEqual(again.actions, (await shown(new PatientHistoryCache(TZ, 1024 * 1024, 'changes'), p, 2)).actions);
  });

  test("an entry that is not a view bumps its patient's counter, in the database (a trigger generated from VIEW_ACTIONS); views and other patients' entries do not", async () => {
    const read = patientVersionReader([]);
    const version = async (database: typeof db, patientId: number) => (await read(database, patientId)).patient;
    const p = 41;
    for (const action of ['patient.update', 'export', ...VIEW_ACTIONS]) {
      const before = await version(db, p);
      const other = await version(db, p + 1);
      await write(p, action);
      const bumped = (await version(db, p)) !== before;
      assert.equal(bumped, !(VIEW_ACTIONS as readonly string[]).includes(action), `${action} ${bumped ? 'bumped' : 'did not bump'} the counter`);
      assert.equal(await version(db, p + 1), other);
    }
    // An entry of no patient (a login) bumps nobody's.
    const before = await version(db, p);
    await recordAudit(db, { at: new Date(), actor, action: 'login', entityType: 'user', entityId: actor.id, patientId: null, changes: null });
    assert.equal(await version(db, p), before);
  });

  test('a kept history of changes shows, at the next visit, an entry with no change of the record beside it (an export)', async () => {
    const cache = new PatientHistoryCache(TZ, 1024 * 1024, 'changes', 0);
    const p = 42;
    await write(p, 'patient.create', { telefono: [null, '1'] });
    assert.deepEqual((await shown(cache, p, 5)).actions, ['patient.create']);
    await write(p, 'patient.view');
    assert.deepEqual((await shown(cache, p, 5)).actions, ['patient.create'], 'kept: a view changes nothing shown');
    await write(p, 'export', { formato: [null, 'FHIR'] });
    const next = await shown(cache, p, 5);
    assert.deepEqual(next.actions, ['export', 'patient.create']);
    assert.equal(next.html, (await shown(new PatientHistoryCache(TZ, 1024 * 1024, 'changes'), p, 5)).html);
  });

  test('entries written since the last visit go on top of the kept ones; the oldest fall off past the limit', async () => {
    const cache = new PatientHistoryCache(TZ, 1024 * 1024, 'all', 0);
    for (let i = 0; i < 3; i++) await write(3, 'patient.view');
    const first = await shown(cache, 3, 4);
    assert.equal(first.ids.length, 3);
    assert.doesNotMatch(first.html, /Se muestran las 4 entradas más recientes/);
    await write(3, 'patient.update', { peso: [null, 7000] });
    await write(3, 'ingreso.status', { estado: ['ACTIVO', 'SUSPENDIDO'] });
    const next = await shown(cache, 3, 4);
    assert.deepEqual(next.actions, ['ingreso.status', 'patient.update', 'patient.view', 'patient.view']);
    assert.deepEqual(next.ids.slice(2), first.ids.slice(0, 2), 'the kept rows follow, the oldest dropped');
    assert.match(next.html, /Se muestran las 4 entradas más recientes/);
    // What the page shows equals a history read anew.
    assert.equal(next.html, (await shown(new PatientHistoryCache(TZ, 1024 * 1024), 3, 4)).html);
  });

  test('views not written yet show on top, once even when written meanwhile, within the limit', async () => {
    const cache = new PatientHistoryCache(TZ, 1024 * 1024, 'all', 0);
    await write(4, 'patient.update', { peso: [null, 7000] });
    const at = new Date(Date.UTC(2026, 10, 1, 12, 0, second++));
    const queued = pendingView(4, at);
    const page = await shown(cache, 4, 10, [queued]);
    assert.deepEqual(page.actions, ['patient.view', 'patient.update']);
    assert.deepEqual(page.ids, [0, page.ids[1]]);
    // The queue's group is committed while the page is read: the view is in both, and shown once.
    await recordAudit(db, { at, actor, action: 'patient.view', entityType: 'patient', entityId: 4, patientId: 4 });
    const again = await shown(cache, 4, 10, [queued]);
    assert.deepEqual(again.actions, ['patient.view', 'patient.update']);
    assert.ok(again.ids[0]! > 0, 'the written entry, not the queued copy');
    // Rows of views are made from cells rendered once per user and patient: each as an AuditRow renders it.
    const rowOf = (html: string) => /<tr data-audit-id="\d+" data-action="patient.view">.*?<\/tr>/.exec(html)?.[0];
    assert.equal(rowOf(page.html), markup(<AuditRow entry={queued} timeZone={TZ} />));
    assert.equal(rowOf(again.html), markup(<AuditRow entry={{ ...queued, id: again.ids[0]! }} timeZone={TZ} />));
    assert.equal(again.html, (await shown(new PatientHistoryCache(TZ, 1024 * 1024), 4, 10)).html);
    const limited = await shown(cache, 4, 2, [pendingView(4, new Date(at.getTime() + 1000)), pendingView(4, new Date(at.getTime() + 2000))]);
    assert.deepEqual(limited.ids, [0, 0]);
    const times = [...limited.html.matchAll(/<time datetime="([^"]+)">([^<]+)<\/time>/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(times, [
      [new Date(at.getTime() + 1000).toISOString(), '01/11/2026 07:00'],
      [new Date(at.getTime() + 2000).toISOString(), '01/11/2026 07:00'],
    ], 'each view with its own time');
  });

  test('keeps at most its bound in bytes, dropping the patients seen least recently', async () => {
    const bound = 4 * 1024;
    const cache = new PatientHistoryCache(TZ, bound, 'all', 0);
    for (let p = 10; p < 20; p++) for (let i = 0; i < 3; i++) await write(p, 'patient.update', { telefono: [`60700${i}`, `60711${i}`] });
    for (let p = 10; p < 20; p++) {
      const page = await shown(cache, p, 20);
      assert.equal(page.ids.length, 3);
      assert.ok(cache.bytes <= bound, `${cache.bytes} bytes kept`);
    }
    assert.ok(cache.bytes > 0);
  });

  test("a patient's history is kept from their second visit in a while, not the first (decision 0375)", async () => {
    const cache = new PatientHistoryCache(TZ, 1024 * 1024, 'changes');
    const p = 77;
    await write(p, 'patient.update', { peso: [null, 7000] });
    const first = await shown(cache, p, 5);
    assert.equal(cache.bytes, 0, 'one visit: nothing held');
    const secondVisit = await shown(cache, p, 5);
    assert.ok(cache.bytes > 0, 'the second visit keeps it');
    assert.equal(secondVisit.html, first.html);
    await write(p, 'ingreso.status', { estado: ['ACTIVO', 'SUSPENDIDO'] });
    const third = await shown(cache, p, 5);
    assert.deepEqual(third.actions, ['ingreso.status', 'patient.update'], 'a kept history still shows what was written since');
  });
});
