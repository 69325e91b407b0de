import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PASSWORD_MAX, PASSWORD_MIN, safeNext, USERNAME_MAX, validatePassword, validateUsername } from './user.rules.js';

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

// Issue 25, point 7: `next` comes back as a Location header can carry it, or not at all.
describe('safeNext', () => {
  test('a relative path on this site, non-ASCII percent-encoded as UTF-8, escapes kept as they are', () => {
    assert.equal(safeNext('/€'), '/%E2%82%AC');
    assert.equal(safeNext('/%E2%82%AC'), '/%E2%82%AC', 'encoding twice changes nothing');
    assert.equal(safeNext('/ñandú/?q=Núñez Ávila#x'), '/%C3%B1and%C3%BA/?q=N%C3%BA%C3%B1ez%20%C3%81vila#x');
    assert.equal(safeNext('/patients/?q=50%'), '/patients/?q=50%25', 'a % that starts no escape');
    assert.equal(safeNext('/a"<b>'), '/a%22%3Cb%3E');
  });

  test('another site, a scheme, a backslash, a control character, a lone surrogate or the login itself: null', () => {
    for (const next of ['//evil.example', '/\\evil.example', '\\/evil.example', 'https://evil.example/', 'javascript:alert(1)', 'evil', '/a\r\nSet-Cookie: x=1', '/\t/evil.example', '/\u0085x', '/\u2028x', '/\uD800', '/users/login/', '/users/logout/', '', 'x'.repeat(2001)]) {
      assert.equal(safeNext(next), null, JSON.stringify(next));
    }
  });
});
