import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PASSWORD_MAX, PASSWORD_MIN, USERNAME_MAX, validatePassword, validateUsername } from './user.rules.js';

// decisions §1: a password is too weak with fewer than 12 characters; up to 128 are accepted.
describe('validatePassword counts characters, not UTF-16 units', () => {
  const emoji = '\u{1F511}';

  test('11 characters are refused, 12 accepted, whatever the characters', () => {
    assert.match(validatePassword('a'.repeat(PASSWORD_MIN - 1), 'ana') ?? '', /al menos 12/);
    assert.equal(validatePassword('a'.repeat(PASSWORD_MIN), 'ana'), null);
    // Six emoji are six characters (twelve UTF-16 units): too weak.
    assert.match(validatePassword(emoji.repeat(6), 'ana') ?? '', /al menos 12/);
    assert.equal(validatePassword(emoji.repeat(PASSWORD_MIN), 'ana'), null);
  });

  test('128 characters are accepted, 129 refused, whatever the characters', () => {
    assert.equal(validatePassword('ñ'.repeat(PASSWORD_MAX), 'ana'), null);
    assert.equal(validatePassword(emoji.repeat(PASSWORD_MAX), 'ana'), null);
    assert.match(validatePassword(emoji.repeat(PASSWORD_MAX + 1), 'ana') ?? '', /hasta 128/);
  });

  test('equal to the user name (case and surrounding spaces ignored) is refused', () => {
    assert.match(validatePassword('Administrador1', ' administrador1 ') ?? '', /igual al nombre/);
  });
});

describe('validateUsername', () => {
  test(`up to ${USERNAME_MAX} characters`, () => {
    assert.equal(validateUsername('ñ'.repeat(USERNAME_MAX)), null);
    assert.match(validateUsername('ñ'.repeat(USERNAME_MAX + 1)) ?? '', /hasta 150/);
  });
});
