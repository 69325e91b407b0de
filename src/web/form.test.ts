import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { acrossFields, fail, FormEncodingError, issuesToErrors, parseForm, parseFormBody, validateForm, withContext } from './form.js';

describe('parseFormBody', () => {
  test('decodes names and values, + as space, UTF-8 escapes as letters', () => {
    const body = parseFormBody('nombre=Jos%C3%A9+Luis&apellido=B%C3%A1ez&vac%C3%ADo=&solo');
    assert.deepEqual({ ...body }, { nombre: 'José Luis', apellido: 'Báez', vacío: '', solo: '' });
  });

  test('raw UTF-8 (as curl -d sends it) is read as typed', () => {
    assert.deepEqual({ ...parseFormBody('nombre=José+Ñandú') }, { nombre: 'José Ñandú' });
  });

  test('a repeated name gives every value, in order', () => {
    assert.deepEqual({ ...parseFormBody('a=1&b=2&a=3&a=4') }, { a: ['1', '3', '4'], b: '2' });
  });

  test('empty bodies and stray separators give nothing', () => {
    assert.deepEqual({ ...parseFormBody('') }, {});
    assert.deepEqual({ ...parseFormBody('&&a=1&') }, { a: '1' });
  });

  test('__proto__ and constructor are plain field names', () => {
    const body = parseFormBody('__proto__=x&constructor=y');
    assert.equal(body['__proto__'], 'x');
    assert.equal(body['constructor'], 'y');
    assert.equal(({} as Record<string, unknown>)['x'], undefined);
  });

  for (const bad of ['nombre=%C3%28', '%FF%FE=1', 'a=%E0%80%80', 'a=%ED%A0%80', 'x=%zz', 'x=%', 'x=%C3', 'x=\ufffd']) {
    test(`refuses ${JSON.stringify(bad)}`, () => {
      assert.throws(() => parseFormBody(bad), FormEncodingError);
    });
  }
});

describe('parseForm', () => {
  const schema = z
    .object({
      nombre: z.string().transform((raw, ctx) => (raw.trim() === '' ? fail(ctx, 'Obligatorio.') : raw.trim())),
      edad: z.string().transform((raw, ctx) => (/^\d+$/.test(raw) ? Number(raw) : fail(ctx, 'Un número.'))),
    })
    .check(z.refine(() => false, { message: 'Del formulario.' }));
  const plain = z.object({ nombre: z.string().transform((raw) => raw.trim()), nota: z.string() });

  test('reads exactly the schema’s fields: the values stored, the values as typed; missing fields are blank', () => {
    const r = parseForm({ nombre: ' Ana ', csrfmiddlewaretoken: 't' }, plain);
    assert.deepEqual(r, { ok: true, data: { nombre: 'Ana', nota: '' }, values: { nombre: ' Ana ', nota: '' } });
  });

  test('an unknown field fails the form with readForm’s message under _form', () => {
    const r = parseForm({ nombre: 'Ana', nota: '', intruso: 'x' }, plain);
    assert.ok(!r.ok);
    assert.deepEqual(r.errors, { _form: 'El formulario contiene campos desconocidos: intruso.' });
  });

  test('readForm’s message wins over the schema’s on the same field; other fields keep theirs', () => {
    const r = parseForm({ nombre: ['Ana', 'Eva'], edad: 'x' }, schema);
    assert.ok(!r.ok);
    assert.equal(r.errors.nombre, 'Este campo se envió más de una vez.');
    assert.equal(r.errors.edad, 'Un número.');
    assert.equal(r.values.nombre, '');
  });

  test('control characters: readForm’s message, the value shown without them', () => {
    const r = parseForm({ nombre: 'A\u0000na', edad: '3' }, schema);
    assert.ok(!r.ok);
    assert.equal(r.errors.nombre, 'Contiene caracteres no permitidos.');
    assert.equal(r.values.nombre, 'Ana');
  });

  test('one message per field, the first; an issue without a path goes to _form', () => {
    const r = parseForm({ nombre: '', edad: '' }, schema);
    assert.ok(!r.ok);
    assert.deepEqual(r.errors, { nombre: 'Obligatorio.', edad: 'Un número.' });
    const whole = parseForm({ nombre: 'Ana', edad: '3' }, schema);
    assert.ok(!whole.ok);
    assert.deepEqual(whole.errors, { _form: 'Del formulario.' });
  });
});

describe('validateForm', () => {
  const schema = z.object({ a: z.string() });
  test('readForm’s errors alone fail a form the schema accepts', () => {
    assert.deepEqual(validateForm({ a: 'x' }, schema, { _form: 'x' }), { ok: false, errors: { _form: 'x' }, values: { a: 'x' } });
    assert.deepEqual(validateForm({ a: 'x' }, schema), { ok: true, data: { a: 'x' }, values: { a: 'x' } });
  });
});

describe('issuesToErrors', () => {
  test('the first message of each field', () => {
    const r = z.object({ a: z.string().min(2, 'corto').regex(/^\d+$/, 'dígitos') }).safeParse({ a: 'x' });
    assert.ok(!r.success);
    assert.deepEqual(issuesToErrors(r.error), { a: 'corto' });
  });
});

describe('acrossFields', () => {
  type Fields = { desde: number; hasta: number; nota: string };
  const number = z.string().transform((raw, ctx) => (/^\d+$/.test(raw) ? Number(raw) : fail(ctx, 'Un número.')));
  const seen: Partial<Fields>[] = [];
  const schema = z.object({ desde: number, hasta: number, nota: z.string() }).check(
    acrossFields<Fields>((valid, failOn) => {
      seen.push({ ...valid });
      if (valid.desde !== undefined && valid.hasta !== undefined && valid.hasta < valid.desde) failOn('hasta', 'Antes del inicio.');
      return valid.nota !== undefined ? { nota: valid.nota.toUpperCase() } : undefined;
    }),
  );

  test('a rule across fields puts its message beside the field it names', () => {
    const r = validateForm({ desde: '5', hasta: '3', nota: '' }, schema);
    assert.ok(!r.ok);
    assert.deepEqual(r.errors, { hasta: 'Antes del inicio.' });
  });

  test('it runs when another field failed, and sees only the fields that passed', () => {
    seen.length = 0;
    const r = validateForm({ desde: 'x', hasta: '3', nota: 'n' }, schema);
    assert.ok(!r.ok);
    assert.deepEqual(r.errors, { desde: 'Un número.' });
    assert.deepEqual(seen, [{ hasta: 3, nota: 'n' }]);
  });

  test('what it returns replaces the fields’ values', () => {
    const r = validateForm({ desde: '1', hasta: '3', nota: 'abc' }, schema);
    assert.ok(r.ok);
    assert.deepEqual(r.data, { desde: 1, hasta: 3, nota: 'ABC' });
  });
});

describe('withContext', () => {
  let builds = 0;
  const notAfter = withContext((context: () => { today: string }) => {
    builds++;
    return z.object({
      fecha: z.string().transform((raw, ctx) => (raw <= context().today ? raw : fail(ctx, `No puede ser posterior a ${context().today}.`))),
    });
  });

  test('each bound schema gives its rules its own context, and the schema is built once', () => {
    const monday = notAfter({ today: '2026-11-23' });
    const wednesday = notAfter({ today: '2026-11-25' });
    assert.deepEqual(parseForm({ fecha: '2026-11-24' }, wednesday), { ok: true, data: { fecha: '2026-11-24' }, values: { fecha: '2026-11-24' } });
    assert.deepEqual(parseForm({ fecha: '2026-11-24' }, monday), {
      ok: false,
      errors: { fecha: 'No puede ser posterior a 2026-11-23.' },
      values: { fecha: '2026-11-24' },
    });
    assert.equal(builds, 1);
    assert.deepEqual(Object.keys(monday.shape), ['fecha']);
  });

  test('a rule that reads the context outside safeParse throws instead of reading another request’s', () => {
    let leaked: (() => { today: string }) | null = null;
    const schema = withContext((context: () => { today: string }) => {
      leaked = context;
      return z.object({ fecha: z.string() });
    });
    schema({ today: '2026-11-25' }).safeParse({ fecha: 'x' });
    assert.throws(() => leaked!(), /outside safeParse/);
  });
});
