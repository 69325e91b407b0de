import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FORM_MSG, listUrl, parseCreatePatientForm, parseListQuery, parsePatientForm, patientFormValues, patientSchema, validatePatientForm } from './patient.schema.js';
import { CYCLE_START_MSG } from '../ingresos/ingreso.rules.js';
import { BIRTH_MSG, DOCUMENTO_MSG } from './patient.rules.js';

describe('parseListQuery', () => {
  test('control characters are dropped from the search (NUL would make PostgreSQL refuse the query)', () => {
    assert.equal(parseListQuery({ query_search: '\u0000' }).query, '');
    assert.equal(parseListQuery({ query_search: 'gon\u0000z\u0007' }).query, 'gonz');
  });
  test('defaults', () => {
    assert.deepEqual(parseListQuery({}), { query: '', mesFiltro: null, mesFiltroError: null, page: 1 });
    assert.deepEqual(parseListQuery(undefined), { query: '', mesFiltro: null, mesFiltroError: null, page: 1 });
  });
  test('values', () => {
    assert.deepEqual(parseListQuery({ query_search: ' ana ', mes_filtro: '7', page: '3' }), { query: 'ana', mesFiltro: 7, mesFiltroError: null, page: 3 });
  });
  test('mes_filtro out of range or not a number is ignored', () => {
    for (const m of ['0', '19', 'abc', '-1', '7.5', '']) assert.equal(parseListQuery({ mes_filtro: m }).mesFiltro, null);
    assert.equal(parseListQuery({ mes_filtro: ['1', '2'] }).mesFiltro, null);
    // A month that was sent and is ignored says so, beside the filter.
    assert.equal(parseListQuery({ mes_filtro: '99' }).mesFiltroError, '«99» no es un mes del programa (de 1 a 18): se muestran todos los meses.');
    assert.equal(parseListQuery({ mes_filtro: '' }).mesFiltroError, null);
    assert.equal(parseListQuery({ mes_filtro: '7' }).mesFiltroError, null);
  });
  test('page: not a number → 1, zero → 1, huge → very large (clamped later to the last page)', () => {
    assert.equal(parseListQuery({ page: 'abc' }).page, 1);
    assert.equal(parseListQuery({ page: '-2' }).page, 1);
    assert.equal(parseListQuery({ page: '0' }).page, 1);
    assert.equal(parseListQuery({ page: '99999999999999999999' }).page, 1e9);
  });
  test('search is cut to 200 characters', () => {
    assert.equal(parseListQuery({ query_search: 'x'.repeat(500) }).query.length, 200);
  });
});

describe('listUrl', () => {
  test('keeps non-empty params, encoded', () => {
    assert.equal(listUrl('/patients/', { query_search: 'josé pérez', mes_filtro: 7, page: 2 }), '/patients/?query_search=jos%C3%A9+p%C3%A9rez&mes_filtro=7&page=2');
    assert.equal(listUrl('/patients/', { query_search: '', mes_filtro: null }), '/patients/');
  });
});

const VALID: Record<string, string> = {
  nombre: ' Ana ', apellido: 'Ríos', tipo_documento: 'cc', documento: ' 1.098.765-432 ', fecha_nacimiento: '1980-01-31', genero: 'F',
  departamento: 'santander', ciudad: 'san gil', zona: 'Urbana', telefono: '607', celular: '300', estado_civil: 'union libre',
  entidad_salud: 'ENTITY_A', estrato: ' 2 ', peso: '70,5', altura: '1.6', perimetro_abdominal: '', cuello: '', medico_remitente: 'Dr',
  especialidad: 'ORL', diagnostico_clinico: 'G47.3', programa: 'programa aos', valor_capita: '', fecha_inicio_programa: '',
};

describe('validatePatientForm', () => {
  test('valid input: trimmed, canonical choices, hundredths, defaults', () => {
    const r = validatePatientForm(VALID, '2026-11-22');
    assert.ok(r.ok);
    assert.equal(r.patient.nombre, 'Ana');
    assert.equal(r.patient.documento, '1098765432', 'stored in its canonical form');
    assert.equal(r.patient.tipo_documento, 'CC');
    assert.equal(r.patient.estado_civil, 'UNIÓN LIBRE');
    assert.equal(r.patient.ciudad, 'SAN GIL');
    assert.equal(r.patient.estrato, 2);
    assert.equal(r.patient.peso, 7050);
    assert.equal(r.patient.altura, 160);
    assert.equal(r.patient.perimetro_abdominal, null);
    assert.equal(r.patient.valor_capita, 25978300);
    assert.equal(r.fechaInicioPrograma, null);
    assert.equal(r.values.estado_civil, 'UNIÓN LIBRE');
  });
  test('a birth date must be before today and at most 120 years ago, each with its own message', () => {
    assert.ok(validatePatientForm({ ...VALID, fecha_nacimiento: '2026-11-21' }, '2026-11-22').ok);
    assert.ok(validatePatientForm({ ...VALID, fecha_nacimiento: '1906-11-22' }, '2026-11-22').ok);
    for (const [fecha, message] of [
      ['2026-11-22', BIRTH_MSG.notBeforeToday('2026-11-22')],
      ['2026-11-23', BIRTH_MSG.notBeforeToday('2026-11-22')],
      ['1906-11-21', BIRTH_MSG.tooOld('1906-11-22')],
      ['1800-01-01', BIRTH_MSG.tooOld('1906-11-22')],
      ['1980-02-30', FORM_MSG.date],
    ] as const) {
      const r = validatePatientForm({ ...VALID, fecha_nacimiento: fecha }, '2026-11-22');
      assert.ok(!r.ok, fecha);
      assert.equal(r.errors.fecha_nacimiento, message, fecha);
    }
    const r = validatePatientForm({ ...VALID, fecha_nacimiento: '1800-01-01' }, '2026-11-22');
    assert.ok(!r.ok);
    assert.match(r.errors.fecha_nacimiento!, /más de 120 años/);
  });
  test('the start of the first cycle: not after today, not before the birth date', () => {
    assert.ok(validatePatientForm({ ...VALID, fecha_inicio_programa: '2026-11-22' }, '2026-11-22').ok);
    const future = validatePatientForm({ ...VALID, fecha_inicio_programa: '2030-01-01' }, '2026-11-22');
    assert.ok(!future.ok);
    assert.equal(future.errors.fecha_inicio_programa, CYCLE_START_MSG.future('2026-11-22'));
    const beforeBirth = validatePatientForm({ ...VALID, fecha_inicio_programa: '1980-01-30' }, '2026-11-22');
    assert.ok(!beforeBirth.ok);
    assert.equal(beforeBirth.errors.fecha_inicio_programa, CYCLE_START_MSG.beforeBirth('1980-01-31'));
  });
  test('documento: refused beside the field when it cannot be a document of its type', () => {
    const cases: [tipo: string, documento: string, ok: boolean][] = [
      ['CC', '88 1234', true],
      ['CC', '８８１２３４', true],
      ['CC', '88A1234', false],
      ['TI', '1234-567', true],
      ['RC', 'ABC', false],
      ['PA', 'ab 123456', true],
      ['CE', 'E-12345', true],
      ['PE', 'Ñ12345', false],
      ['PA', '12345/6', false],
      ['CC', '...', false],
      ['CC', '1'.repeat(21), false],
      ['CC', '1.234.567.890.123.456.789.01', false],
      ['CC', '12.345.678.901.234.567', true],
    ];
    for (const [tipo, documento, ok] of cases) {
      const r = validatePatientForm({ ...VALID, tipo_documento: tipo, documento }, '2026-11-22');
      assert.equal(r.ok, ok, `${tipo} ${documento}`);
      if (!r.ok) assert.ok(r.errors.documento, `${tipo} ${documento}: message beside the field`);
    }
    const r = validatePatientForm({ ...VALID, tipo_documento: 'CC', documento: '88A1234' }, '2026-11-22');
    assert.ok(!r.ok);
    assert.match(r.errors.documento!, /solo puede tener dígitos/);
  });
  test('lengths count characters, not UTF-16 units', () => {
    assert.ok(validatePatientForm({ ...VALID, nombre: '😀'.repeat(100) }, '2026-11-22').ok);
    assert.ok(!validatePatientForm({ ...VALID, nombre: '😀'.repeat(101) }, '2026-11-22').ok);
  });
  test('every problem is reported at once, and readForm errors are kept', () => {
    const r = validatePatientForm({ ...VALID, genero: 'X', ciudad: 'medellin', peso: '1,234' }, '2026-11-22', { _form: 'x' });
    assert.ok(!r.ok);
    assert.deepEqual(Object.keys(r.errors).sort(), ['_form', 'ciudad', 'genero', 'peso']);
    assert.equal(r.values.genero, 'X');
  });
  test('numbers as Colombians write them (decision 0069): money with thousands dots, measurements with either separator', () => {
    const capita = (valor_capita: string) => validatePatientForm({ ...VALID, valor_capita }, '2026-11-22');
    for (const [typed, value] of [['259.783', 25978300], ['259.783,50', 25978350], ['$ 259.783', 25978300], ['1.234.567', 123456700]] as const) {
      const r = capita(typed);
      assert.ok(r.ok, typed);
      assert.equal(r.patient.valor_capita, value, typed);
    }
    // A comma before three digits: a thousands comma or three decimals; the form asks, showing both.
    const ambiguous = capita('1,500');
    assert.ok(!ambiguous.ok);
    assert.equal(ambiguous.errors.valor_capita, '«1,500» puede leerse como 1500 o como 1,5: escriba 1500 (sin separador de miles) o 1,5 (con coma decimal).');
    const measures = validatePatientForm({ ...VALID, peso: '72.5', altura: '1,72', cuello: '42.500' }, '2026-11-22');
    assert.ok(measures.ok);
    assert.deepEqual([measures.patient.peso, measures.patient.altura, measures.patient.cuello], [7250, 172, 4250]);
    const tooBig = validatePatientForm({ ...VALID, peso: '1.234,5' }, '2026-11-22');
    assert.ok(!tooBig.ok);
    assert.equal(tooBig.errors.peso, 'El valor máximo es 999,99; «1.234,5» se leyó como 1234,5.');
  });
  test('patientFormValues shows decimals with a comma, money as the record shows it, and round-trips', () => {
    const r = validatePatientForm(VALID, '2026-11-22');
    assert.ok(r.ok);
    const values = patientFormValues(r.patient, '2026-01-05');
    assert.equal(values.peso, '70,50');
    assert.equal(values.valor_capita, '259.783');
    assert.equal(values.fecha_inicio_programa, '2026-01-05');
    const again = validatePatientForm(values, '2026-11-22');
    assert.ok(again.ok);
    assert.deepEqual(again.patient, r.patient);
  });
});

describe('the patient form’s schema', () => {
  const TODAY = '2026-11-22';
  const errorsOf = (over: Record<string, string>) => {
    const r = validatePatientForm({ ...VALID, ...over }, TODAY);
    return r.ok ? {} : r.errors;
  };

  test('built once a day', () => {
    assert.equal(patientSchema(TODAY), patientSchema(TODAY));
  });

  test('a message per field rule', () => {
    assert.deepEqual(errorsOf({ nombre: '  ' }), { nombre: FORM_MSG.required });
    assert.deepEqual(errorsOf({ apellido: 'x'.repeat(101) }), { apellido: FORM_MSG.tooLong(100, 101) });
    assert.deepEqual(errorsOf({ zona: 'costa' }), { zona: FORM_MSG.choice });
    assert.deepEqual(errorsOf({ estrato: '7' }), { estrato: FORM_MSG.estrato });
    assert.deepEqual(errorsOf({ diagnostico_clinico: 'F51' }), { diagnostico_clinico: FORM_MSG.diagnostico });
    assert.deepEqual(errorsOf({ departamento: 'Narnia' }), { departamento: FORM_MSG.departamento, ciudad: FORM_MSG.ciudadNeedsDepartamento });
    assert.deepEqual(errorsOf({ fecha_inicio_programa: '2026-02-30' }), { fecha_inicio_programa: FORM_MSG.date });
    assert.ok(errorsOf({ peso: '-1' }).peso);
    assert.deepEqual(errorsOf({ documento: ' ' }), { documento: FORM_MSG.required });
  });

  test('rules across fields put their message beside the field they are about', () => {
    // documento against tipo_documento; not checked when the type itself is refused.
    assert.deepEqual(errorsOf({ tipo_documento: 'TI', documento: '12A' }), { documento: DOCUMENTO_MSG.digitsOnly('Tarjeta de identidad') });
    assert.deepEqual(errorsOf({ tipo_documento: 'XX', documento: '12A' }), { tipo_documento: FORM_MSG.choice });
    assert.deepEqual(errorsOf({ documento: '...' }), { documento: DOCUMENTO_MSG.empty });
    // ciudad within the departamento.
    assert.deepEqual(errorsOf({ departamento: 'antioquia', ciudad: 'san gil' }), { ciudad: FORM_MSG.ciudad('ANTIOQUIA') });
    assert.deepEqual(errorsOf({ ciudad: '' }), { ciudad: FORM_MSG.required });
    // the first cycle's start against the birth date, or only against today when the birth date is refused.
    assert.deepEqual(errorsOf({ fecha_nacimiento: '2000-01-01', fecha_inicio_programa: '1999-12-31' }), {
      fecha_inicio_programa: CYCLE_START_MSG.beforeBirth('2000-01-01'),
    });
    assert.deepEqual(errorsOf({ fecha_nacimiento: 'x', fecha_inicio_programa: '1999-12-31' }), { fecha_nacimiento: FORM_MSG.date });
  });

  test('a blank departamento is the default one; the ciudad is stored and shown in its listed form', () => {
    const r = validatePatientForm({ ...VALID, departamento: '', ciudad: 'barbosa' }, TODAY);
    assert.ok(r.ok);
    assert.equal(r.patient.departamento, 'SANTANDER');
    assert.equal(r.patient.ciudad, 'BARBOSA');
    assert.equal(r.values.departamento, 'SANTANDER');
    assert.equal(r.values.ciudad, 'BARBOSA');
  });

  test('a failed form is shown as typed, except what matched its list', () => {
    const r = validatePatientForm({ ...VALID, nombre: '', genero: 'f', estrato: ' 3 ', zona: 'costa', ciudad: 'medellin' }, TODAY);
    assert.ok(!r.ok);
    assert.equal(r.values.genero, 'F');
    assert.equal(r.values.estrato, '3');
    assert.equal(r.values.zona, 'costa');
    assert.equal(r.values.departamento, 'SANTANDER');
    assert.equal(r.values.ciudad, 'medellin');
    assert.equal(r.values.documento, ' 1.098.765-432 ');
  });

  test('posted: readForm’s errors win on their field; the create form reads its confirmation', () => {
    const update = parsePatientForm({ ...VALID, nombre: ['Ana', 'Eva'], otro: '1' }, TODAY);
    assert.ok(!update.ok);
    assert.equal(update.errors.nombre, 'Este campo se envió más de una vez.');
    assert.match(update.errors._form ?? '', /desconocidos: otro/);
    assert.ok(!parsePatientForm({ ...VALID, es_otra_persona: '1' }, TODAY).ok, 'the confirmation belongs to the create form only');
    const created = parseCreatePatientForm({ ...VALID, es_otra_persona: '1' }, TODAY);
    assert.ok(created.form.ok && created.otherPerson);
    assert.ok(!('es_otra_persona' in created.form.patient));
    const unconfirmed = parseCreatePatientForm(VALID, TODAY);
    assert.ok(unconfirmed.form.ok && !unconfirmed.otherPerson);
  });
});
