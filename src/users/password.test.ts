import assert from 'node:assert/strict';
import { test } from 'node:test';
import { derivationsAtOnce, hashPassword, verifyPassword } from './password.js';

test('passwords hashed and checked together derive one at a time (each holds 32 MiB), and each still checks', async () => {
  const passwords = ['una-clave-larga-1', 'una-clave-larga-2', 'una-clave-larga-3', 'una-clave-larga-4'];
  const hashes = await Promise.all(passwords.map((p) => hashPassword(p)));
  const checks = await Promise.all([
    ...passwords.map((p, i) => verifyPassword(p, hashes[i]!)),
    verifyPassword('otra-clave-larga', hashes[0]!),
    verifyPassword('x', 'no es un hash'),
  ]);
  assert.deepEqual(checks, [true, true, true, true, false, false]);
  assert.equal(derivationsAtOnce(), 1);
});
