// The patient form without errors comes from markup rendered once (decision 0160): the same bytes as the
// components, every value escaped.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { render } from 'preact-render-to-string';
import { DEPARTAMENTOS, municipiosOf } from '../divipola.js';
import { PATIENT_FORM_FIELDS } from '../patient.fields.js';
import { PatientFields } from './patient-form.js';

/** The form as its components render it: an error of no field of the form takes that path without changing a field. */
const byComponents = (values: Record<string, string>) => render(<PatientFields values={values} errors={{ _ninguno: 'x' }} />);
const prerendered = (values: Record<string, string>) => render(<PatientFields values={values} errors={{}} />);

describe('the patient form rendered once', () => {
  test('gives the same markup as its components for stored, empty, odd and unknown values', () => {
    const cases: Record<string, string>[] = [
      {},
      { nombre: 'José Peña', apellido: 'Ñuñez', tipo_documento: 'CC', documento: '1098765432', genero: 'M', departamento: 'ANTIOQUIA', ciudad: municipiosOf('ANTIOQUIA')[3]!, estrato: '2', peso: '72,5' },
      { departamento: 'BOGOTÁ, D.C.', ciudad: 'BOGOTÁ, D.C.', zona: 'RURAL', estado_civil: 'SOLTERO' },
      // Values outside the lists (a posted or imported one) are offered again as «(no válido)».
      { departamento: 'NARNIA', ciudad: 'CAIR PARAVEL', genero: 'Q', tipo_documento: 'ZZ', estrato: '9' },
      { departamento: 'SANTANDER', ciudad: 'MEDELLÍN' },
    ];
    for (const d of DEPARTAMENTOS) cases.push({ departamento: d, ciudad: municipiosOf(d).at(-1)! });
    // Twice each: the second from what the first kept.
    for (const values of [...cases, ...cases]) assert.equal(prerendered(values), byComponents(values), JSON.stringify(values));
  });

  test('escapes what a person typed in every text field', () => {
    const typed = '<script>alert(1)</script> "x" & <b>';
    const values = Object.fromEntries(PATIENT_FORM_FIELDS.map((name) => [name, typed]));
    const html = prerendered(values);
    assert.equal(html, byComponents(values));
    assert.doesNotMatch(html, /<script>|<b>|"x"/);
    assert.match(html, /<input id="id_nombre" name="nombre" type="text" value="&lt;script>alert\(1\)&lt;\/script> &quot;x&quot; &amp; &lt;b>"/);
  });

  test('names each choice once: its code and its name, never the code twice', () => {
    const html = prerendered({ tipo_documento: 'CC', tipo_usuario: '04' });
    assert.match(html, /<option value="CC" selected>CC · Cédula de ciudadanía<\/option>/);
    assert.match(html, /<option value="04" selected>04 Subsidiado<\/option>/);
    assert.match(html, /<option value="01">01 Contributivo cotizante<\/option>/);
    assert.doesNotMatch(html, /(\d\d) · \1 /);
  });
});
