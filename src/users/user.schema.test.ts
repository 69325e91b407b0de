import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseForm } from '../web/form.js';
import { PASSWORD_MISMATCH } from './user.rules.js';
import { BAD_CREDENTIALS, changePasswordSchema, createUserSchema, loginSchema, setPasswordSchema, setupSchema } from './user.schema.js';

const GOOD = 'una-clave-bien-larga';

describe('loginSchema', () => {
  test('the user name trimmed, the password as typed, next as sent', () => {
    const r = parseForm({ username: ' ana ', password: ` ${GOOD} `, next: '/patients/' }, loginSchema);
    assert.ok(r.ok);
    assert.deepEqual(r.data, { username: 'ana', password: ` ${GOOD} `, next: '/patients/' });
  });
  test('blank or too long: the one answer, whatever was wrong', () => {
    for (const body of [
      { username: '  ', password: GOOD },
      { username: 'ana', password: '' },
      { username: 'a'.repeat(151), password: GOOD },
      { username: 'ana', password: 'x'.repeat(129) },
    ]) {
      const r = parseForm(body, loginSchema);
      assert.ok(!r.ok);
      assert.ok(Object.values(r.errors).every((m) => m === BAD_CREDENTIALS), JSON.stringify(r.errors));
    }
  });
  test('150 characters of user name and 128 of password are accepted, emoji counting one', () => {
    assert.ok(parseForm({ username: '😀'.repeat(150), password: '😀'.repeat(128) }, loginSchema).ok);
  });
});

describe('setupSchema and createUserSchema', () => {
  test('a valid new user: the name trimmed; is_admin ticked by any value', () => {
    const setup = parseForm({ token: 't', username: ' jefa ', password: GOOD, password2: GOOD }, setupSchema);
    assert.ok(setup.ok);
    assert.deepEqual(setup.data, { token: 't', username: 'jefa', password: GOOD, password2: GOOD });
    const create = parseForm({ username: 'enfermera1', password: GOOD, password2: GOOD, is_admin: 'on' }, createUserSchema);
    assert.ok(create.ok && create.data.is_admin === true);
    const notAdmin = parseForm({ username: 'enfermera1', password: GOOD, password2: GOOD }, createUserSchema);
    assert.ok(notAdmin.ok && notAdmin.data.is_admin === false);
  });
  test('each rule’s message beside its field', () => {
    const errorsOf = (body: Record<string, string>) => {
      const r = parseForm({ username: 'ana', password: GOOD, password2: GOOD, ...body }, createUserSchema);
      return r.ok ? {} : r.errors;
    };
    assert.deepEqual(errorsOf({ username: ' ' }), { username: 'Escriba un nombre de usuario.' });
    assert.deepEqual(errorsOf({ username: 'ana maria' }), { username: 'Use solo letras, números y los signos @ . + - _ (sin espacios).' });
    assert.deepEqual(errorsOf({ username: 'a'.repeat(151) }), { username: 'El nombre de usuario admite hasta 150 caracteres.' });
    assert.deepEqual(errorsOf({ password: 'corta', password2: 'corta' }), { password: 'La contraseña debe tener al menos 12 caracteres.' });
    assert.deepEqual(errorsOf({ password: 'x'.repeat(129) }), { password: 'La contraseña admite hasta 128 caracteres.', password2: PASSWORD_MISMATCH });
    assert.deepEqual(errorsOf({ password2: `${GOOD}x` }), { password2: PASSWORD_MISMATCH });
  });
  test('the password is checked against the name typed, even when the name itself is refused', () => {
    const r = parseForm({ username: ' enfermera jefe ', password: 'ENFERMERA JEFE', password2: 'x' }, createUserSchema);
    assert.ok(!r.ok);
    assert.deepEqual(r.errors, {
      username: 'Use solo letras, números y los signos @ . + - _ (sin espacios).',
      password: 'La contraseña no puede ser igual al nombre de usuario.',
      password2: PASSWORD_MISMATCH,
    });
  });
  test('every problem at once, the repetition too (issue 29: the setup said one per try); readForm’s errors are kept', () => {
    const r = parseForm({ token: 't', username: ['a', 'b'], password: 'corta', password2: 'otra' }, setupSchema);
    assert.ok(!r.ok);
    assert.deepEqual(r.errors, { username: 'Este campo se envió más de una vez.', password: 'La contraseña debe tener al menos 12 caracteres.', password2: PASSWORD_MISMATCH });
  });
});

describe('setPasswordSchema and changePasswordSchema', () => {
  test('the new password is checked against the user’s name, its repetition beside the second field', () => {
    const same = parseForm({ password: 'Enfermera.Jefa', password2: 'Enfermera.Jefa' }, setPasswordSchema('enfermera.jefa'));
    assert.ok(!same.ok);
    assert.deepEqual(same.errors, { password: 'La contraseña no puede ser igual al nombre de usuario.' });
    const mismatch = parseForm({ password: GOOD, password2: 'x' }, setPasswordSchema('ana'));
    assert.ok(!mismatch.ok);
    assert.deepEqual(mismatch.errors, { password2: PASSWORD_MISMATCH });
    assert.ok(parseForm({ password: GOOD, password2: GOOD }, setPasswordSchema('ana')).ok);
  });
  test('the own password form: new_password1 and new_password2; the current one is read as typed', () => {
    const schema = changePasswordSchema('ana');
    const weak = parseForm({ old_password: 'vieja', new_password1: 'corta', new_password2: 'corta' }, schema);
    assert.ok(!weak.ok);
    assert.deepEqual(weak.errors, { new_password1: 'La contraseña debe tener al menos 12 caracteres.' });
    const mismatch = parseForm({ old_password: 'vieja', new_password1: GOOD, new_password2: 'x' }, schema);
    assert.ok(!mismatch.ok);
    assert.deepEqual(mismatch.errors, { new_password2: PASSWORD_MISMATCH });
    const ok = parseForm({ old_password: ' vieja ', new_password1: GOOD, new_password2: GOOD }, schema);
    assert.ok(ok.ok && ok.data.old_password === ' vieja ');
  });
});
