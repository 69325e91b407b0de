// GET /healthz/memory: where the server's memory is, for the benchmark's table after each scenario (decision 0250).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestContext, loggedInClient, TestClient, type TestContext } from './helpers.js';
import { patientForm } from './reliability/lib/world.js';

let ctx: TestContext;
before(async () => {
  ctx = await createTestContext();
});
after(async () => ctx.close());

test('administrators read the memory and the bytes each cache keeps; others do not', async () => {
  const { client: staff } = await loggedInClient(ctx);
  assert.notEqual((await staff.get('/healthz/memory')).status, 200);
  assert.notEqual((await new TestClient(ctx.app).get('/healthz/memory')).status, 200);

  const { client: admin } = await loggedInClient(ctx, { isAdmin: true });
  const form = patientForm();
  assert.equal((await admin.post('/patients/create/', form)).status, 302);
  const { id } = await ctx.db.selectFrom('patients').select('id').where('documento', '=', form.documento!).executeTakeFirstOrThrow();
  // Seen twice: a record is kept from its second visit (decision 0375).
  for (let visit = 0; visit < 2; visit++) assert.equal((await admin.get(`/patients/${id}/`)).status, 200);

  const res = await admin.get('/healthz/memory');
  assert.equal(res.status, 200);
  const report = JSON.parse(res.body) as { rss: number; heapUsed: number; external: number; spaces: Record<string, { size: number }>; kept: Record<string, number> };
  assert.ok(report.rss > report.heapUsed && report.heapUsed > 0);
  assert.ok(report.spaces['new_space']!.size > 0);
  // The record seen again is kept, and its history.
  assert.ok(report.kept['patients.record']! > 0, JSON.stringify(report.kept));
  assert.ok(report.kept['patient history']! > 0, JSON.stringify(report.kept));
});
