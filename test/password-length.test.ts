import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, createUser, login, TestClient, type TestContext } from './helpers.js';

// decisions §1: passwords of 12 to 128 characters are accepted; a character outside the BMP is one character.
describe('passwords are measured in characters', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => ctx.close());

  test('a user whose password has 128 characters outside the BMP (256 UTF-16 units) logs in', async () => {
    const user = await createUser(ctx.db, { password: '\u{1F511}'.repeat(128) });
    await login(new TestClient(ctx.app), user.username, user.password);
  });

  test('a new password of six emoji (twelve UTF-16 units) is too short', async () => {
    const user = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    await login(client, user.username, user.password);
    const weak = '\u{1F511}'.repeat(6);
    const res = await client.post('/users/password/', { old_password: user.password, new_password1: weak, new_password2: weak });
    assert.equal(res.status, 200);
    assert.match(res.body, /al menos 12 caracteres/);
  });
});
