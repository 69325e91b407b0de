// Item 7: `npm run backup` under write load gives a copy that passes integrity_check and holds every change
// acknowledged before it started; the app runs on a restored copy; the log of a full journey holds no names,
// documentos, passwords or tokens.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loggerOptions } from '../../src/web/logging.js';
import { openDatabase } from '../../src/db/connection.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { todayIn } from '../../src/shared/dates.js';
import { createUser, ENGINE, testConfig, TestClock } from '../helpers.js';
import { checkCopy, runCli } from './lib/backup.js';
import { Client } from './lib/client.js';
import { createReliabilityContext, report, type ReliabilityContext } from './lib/context.js';
import { examForm, patientForm, uniqueDocumento } from './lib/world.js';

let ctx: ReliabilityContext;
const dir = mkdtempSync(path.join(tmpdir(), 'somno-backup-test-'));

before(async () => {
  ctx = await createReliabilityContext();
});
after(async () => {
  await ctx.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('backup and restore', () => {
  if (ENGINE === 'postgres') {
    test('on PostgreSQL the backup command refuses clearly and points to pg_dump (exit 2)', async () => {
      const res = await runCli('backup.ts', [path.join(dir, 'x.sqlite')], ctx.database.url);
      assert.equal(res.code, 2, res.out);
      assert.match(res.out, /pg_dump/);
    });
    return;
  }

  test('a backup taken under write load passes integrity_check, holds every acknowledged change, and the app runs on it', async () => {
    const { client, user } = await ctx.loggedIn();
    const acknowledged: string[] = [];
    let stop = false;
    // A create the form refuses (a rule the test data breaks, or a possible duplicate person held back) stops the
    // writers and fails the test at once, rather than leaving the wait below spinning for acknowledgements.
    let refused: string | null = null;
    const writer = async () => {
      while (!stop) {
        const documento = uniqueDocumento('B');
        const res = await client.post('/patients/create/', patientForm({ documento, nombre: 'Respaldo', apellido: 'Carga' }));
        if (res.status === 302) acknowledged.push(documento.toUpperCase());
        else if (res.status === 200) {
          refused ??= `${res.status}: ${res.body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').slice(0, 300)}`;
          stop = true;
        }
      }
    };
    const writers = [writer(), writer(), writer()];
    while (acknowledged.length < 5 && refused === null) await new Promise((r) => setTimeout(r, 20));
    assert.equal(refused, null, 'a create under load was refused');
    const copies: { file: string; ackedBefore: string[] }[] = [];
    for (const name of ['uno.sqlite', 'dos.sqlite']) {
      const file = path.join(dir, name);
      const ackedBefore = [...acknowledged];
      const res = await runCli('backup.ts', [file], ctx.database.url);
      assert.equal(res.code, 0, res.out);
      assert.match(res.out, /integrity_check: ok/);
      copies.push({ file, ackedBefore });
    }
    stop = true;
    await Promise.all(writers);
    for (const { file, ackedBefore } of copies) {
      const check = checkCopy(file);
      assert.equal(check.integrity, 'ok');
      assert.equal(check.foreignKeys, 0);
      const missing = ackedBefore.filter((d) => !check.documentos.has(d));
      assert.deepEqual(missing, [], `${path.basename(file)} lacks changes acknowledged before the backup started`);
      report(`backup ${path.basename(file)} under load: ${check.patients} patients, ${ackedBefore.length} acknowledged before it started all present, integrity_check ok`);
    }
    assert.ok(acknowledged.length > copies[0]!.ackedBefore.length, 'writes went on while the backups ran');

    // Restore (docs/reliability.md): the copy becomes the database file; the app starts on it and reads it.
    const restored = path.join(dir, 'restaurada', 'somno.sqlite');
    const handle = openDatabase(`sqlite:${restored}`);
    await handle.close();
    rmSync(restored);
    copyFileSync(copies[1]!.file, restored);
    const db = openDatabase(`sqlite:${restored}`);
    await migrateToLatest(db.db);
    const app = await buildApp({ config: testConfig(), db: db.db, engine: 'sqlite', clock: new TestClock(), logger: false });
    try {
      await app.ready();
      const reader = Client.inject(app);
      await reader.login(user.username, user.password);
      const documento = copies[1]!.ackedBefore[0]!;
      const list = await reader.get(`/patients/?query_search=${encodeURIComponent(documento)}`);
      assert.equal(list.status, 200);
      const id = /data-patient-id="(\d+)"/.exec(list.body)?.[1];
      assert.ok(id, 'the restored copy lists the patient');
      const detail = await reader.get(`/patients/${id}/`);
      assert.equal(detail.status, 200);
      assert.match(detail.body, /Respaldo/);
      report(`restore: the app started on the copy, logged in as ${user.username} and read patient ${id}`);
    } finally {
      await app.close();
      await db.close();
    }
  });

  test('the backup command refuses an existing target and a missing database, and explains its usage', async () => {
    const existing = path.join(dir, 'existente.sqlite');
    assert.equal((await runCli('backup.ts', [existing], ctx.database.url)).code, 0);
    const again = await runCli('backup.ts', [existing], ctx.database.url);
    assert.equal(again.code, 1);
    assert.match(again.out, /ya existe/);
    const missing = await runCli('backup.ts', [path.join(dir, 'otra.sqlite')], `sqlite:${path.join(dir, 'no-existe.sqlite')}`);
    assert.equal(missing.code, 1);
    assert.match(missing.out, /No existe la base de datos/);
    const usage = await runCli('backup.ts', [], ctx.database.url);
    assert.equal(usage.code, 2);
    assert.match(usage.out, /Uso: npm run backup -- ARCHIVO/);
  });
});

describe('logs', () => {
  test('the log of a full journey holds no names, documentos, passwords, cookies or tokens', async () => {
    let log = '';
    const stream = new Writable({
      write(chunk, _enc, cb) {
        log += String(chunk);
        cb();
      },
    });
    const options = loggerOptions('development') as Record<string, unknown>;
    // With every request logged (LOG_REQUESTS=true), the most the log can hold.
    const app = await buildApp({ config: { ...ctx.config, logRequests: true }, db: ctx.db, engine: ctx.database.handle.engine, clock: ctx.clock, logger: { ...options, level: 'trace', stream } });
    try {
      await app.ready();
      const user = await createUser(ctx.db, { password: 'Contraseña-Secreta-Única-77' });
      const secret = { nombre: 'Zacaríasúnico', apellido: 'Quinteroúnico', documento: uniqueDocumento('LOG') };
      const client = Client.inject(app);
      // A failed login first (its password must not be logged either), then the journey.
      await client.get('/users/login/');
      await client.post('/users/login/', { username: user.username, password: 'Clave-Equivocada-Única-55' });
      await client.login(user.username, user.password);
      const created = await client.post('/patients/create/', patientForm(secret));
      assert.equal(created.status, 302);
      const list = await client.get(`/patients/?query_search=${encodeURIComponent(secret.documento)}`);
      const id = /data-patient-id="(\d+)"/.exec(list.body)?.[1];
      assert.ok(id);
      await client.get(`/patients/?query_search=${encodeURIComponent(secret.nombre)}`);
      await client.get(`/patients/follow?query_search=${encodeURIComponent(secret.apellido)}`);
      await client.get(`/patients/${id}/`);
      await client.post(`/patients/${id}/`, patientForm({ ...secret, telefono: '3009998877' }));
      await client.get(`/exams/?query_search=${encodeURIComponent(secret.nombre)}`);
      await client.get(`/exams/${id}/`);
      await client.post(`/exams/${id}/monitoreo/`, examForm('monitoreo', todayIn(ctx.config.timeZone, ctx.clock.now())));
      const ingreso = await ctx.db.selectFrom('ingresos').select('id').where('paciente_id', '=', Number(id)).executeTakeFirstOrThrow();
      await client.post(`/patients/ingreso/estado/${ingreso.id}/SUSPENDIDO/`, { motivo_estado: `Pausa de ${secret.nombre}` });
      await client.get('/dashboard/');
      await client.get(`/dashboard/capita.csv?mes=${todayIn(ctx.config.timeZone, ctx.clock.now()).slice(0, 7)}`);
      await client.get('/users/password/');
      await client.post('/users/password/', { old_password: user.password, new_password1: 'Otra-Contraseña-Secreta-88', new_password2: 'Otra-Contraseña-Secreta-88' });
      await client.post('/users/logout/');

      const lines = log.split('\n').filter(Boolean);
      // One line a request (when it is answered): about 19 for this journey.
      assert.ok(lines.length >= 15, `the journey was logged (${lines.length} lines)`);
      assert.ok(log.includes(`"path":"/patients/${id}/"`), 'requests are logged with their path');
      const cookieValues = [...client.cookies.values()].filter((v) => v.length > 8);
      const forbidden = [
        secret.nombre,
        secret.apellido,
        secret.documento,
        'Zacar',
        'Quintero',
        user.password,
        'Clave-Equivocada-Única-55',
        'Otra-Contraseña-Secreta-88',
        'csrfmiddlewaretoken',
        'sessionid=',
        client.csrfToken ?? 'no-token',
        ...cookieValues,
      ];
      const found = forbidden.filter((f) => log.includes(f) || log.includes(encodeURIComponent(f)));
      report(`logs: ${lines.length} log lines of a full journey (login, failed login, create, search, detail, update, exam, status, dashboard, CSV, password, logout) searched for ${forbidden.length} secrets: ${found.length === 0 ? 'none found' : found.join(', ')}`);
      assert.deepEqual(found, []);
    } finally {
      await app.close();
    }
  });
});
