// The exam forms without a posted form come from markup rendered once a day (decision 0160): the same bytes as
// the components, each form posting to its patient.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { render } from 'preact-render-to-string';
import { ExamForms } from './forms.js';

describe('the exam forms rendered once a day', () => {
  test('give the same markup as their components, for each patient and day', () => {
    for (const today of ['2026-11-27', '2026-11-28', '2026-11-27']) {
      for (const patientId of [1, 42, 99_999]) {
        const once = render(<ExamForms patientId={patientId} today={today} />);
        // A posted form without values or errors renders as a fresh one, through the components.
        const components = render(<ExamForms patientId={patientId} today={today} posted={{ kind: 'OTRO', values: { fecha: today }, errors: {} }} />);
        assert.equal(once, components);
        assert.equal(once.match(new RegExp(`action="/exams/${patientId}/(monitoreo|psicologia|otros)/"`, 'g'))?.length, 3);
        assert.equal(once.match(new RegExp(`value="${today}"`, 'g'))?.length, 3);
      }
    }
  });
});
