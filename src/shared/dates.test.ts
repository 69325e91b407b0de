import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addDays,
  zoneOffsetAt,
  addYears,
  parseCalendarDate,
  addMonthsToMonthStart,
  daysInMonth,
  formatDateEs,
  formatDateTimeEs,
  isLeapYear,
  monthStartOf,
  monthsBetween,
  parseIsoDate,
  parseIsoMonth,
  splitIsoDate,
  todayIn,
} from './dates.js';

describe('todayIn', () => {
  const cases: Array<[zone: string, instant: string, expected: string]> = [
    // Bogotá is UTC-5 all year (no DST): 03:00Z is still the previous evening there.
    ['America/Bogota', '2026-11-22T03:00:00.000Z', '2026-11-21'],
    ['UTC', '2026-11-22T03:00:00.000Z', '2026-11-22'],
    ['America/Bogota', '2026-11-22T04:59:59.999Z', '2026-11-21'],
    ['America/Bogota', '2026-11-22T05:00:00.000Z', '2026-11-22'],
    ['America/Bogota', '2027-01-01T04:00:00.000Z', '2026-12-31'],
    ['America/Bogota', '2024-03-01T04:00:00.000Z', '2024-02-29'],
    ['Asia/Tokyo', '2026-11-21T15:00:00.000Z', '2026-11-22'],
    ['UTC', '2026-11-21T23:59:59.999Z', '2026-11-21'],
  ];
  for (const [zone, instant, expected] of cases) {
    test(`${instant} in ${zone} is ${expected}`, () => {
      assert.equal(todayIn(zone, new Date(instant)), expected);
    });
  }

  test('an unknown zone throws', () => {
    assert.throws(() => todayIn('Mars/Olympus', new Date()), RangeError);
  });
});

describe('parseIsoDate', () => {
  const cases: Array<[input: string, expected: string | null]> = [
    ['2024-02-29', '2024-02-29'],
    ['2023-02-29', null],
    ['2024-02-30', null],
    ['2000-02-29', '2000-02-29'], // divisible by 400
    ['1900-02-29', null], // divisible by 100, not 400
    ['2100-02-29', null],
    ['2026-04-30', '2026-04-30'],
    ['2026-04-31', null],
    ['2026-12-31', '2026-12-31'],
    ['2026-13-01', null],
    ['2026-00-10', null],
    ['2026-01-00', null],
    [' 2024-01-01 ', '2024-01-01'],
    ['\t2024-01-01\n', '2024-01-01'],
    ['1900-01-01', '1900-01-01'],
    ['2100-12-31', '2100-12-31'],
    ['1899-12-31', null],
    ['2101-01-01', null],
    ['2024-1-01', null],
    ['2024-01-1', null],
    ['24-01-01', null],
    ['2024/01/01', null],
    ['01/01/2024', null],
    ['2024-01-01T00:00:00Z', null],
    ['20240101', null],
    ['', null],
    ['   ', null],
    ['abcd-ef-gh', null],
    ['２０２４-01-01', null], // full-width digits
    ['2024-01-01x', null],
    ['+2024-01-01', null],
  ];
  for (const [input, expected] of cases) {
    test(`${JSON.stringify(input)} → ${expected}`, () => {
      assert.equal(parseIsoDate(input), expected);
    });
  }
});

describe('parseIsoMonth', () => {
  const cases: Array<[string, string | null]> = [
    ['2026-11', '2026-11'],
    [' 2026-01 ', '2026-01'],
    ['2026-13', null],
    ['2026-00', null],
    ['2026-1', null],
    ['2026-11-01', null],
    ['1899-12', null],
    ['', null],
  ];
  for (const [input, expected] of cases) {
    test(`${JSON.stringify(input)} → ${expected}`, () => assert.equal(parseIsoMonth(input), expected));
  }
});

describe('calendar basics', () => {
  test('isLeapYear', () => {
    assert.deepEqual(
      [1900, 2000, 2023, 2024, 2100].map(isLeapYear),
      [false, true, false, true, false],
    );
  });
  test('daysInMonth', () => {
    assert.deepEqual(
      Array.from({ length: 12 }, (_, i) => daysInMonth(2023, i + 1)),
      [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31],
    );
    assert.equal(daysInMonth(2024, 2), 29);
  });
  test('splitIsoDate throws on malformed input', () => {
    assert.deepEqual(splitIsoDate('2026-11-22'), { year: 2026, month: 11, day: 22 });
    assert.throws(() => splitIsoDate('22/11/2026'), RangeError);
  });
});

describe('monthStartOf', () => {
  const cases: Array<[string, string]> = [
    ['2026-11-22', '2026-11-01'],
    ['2026-11-01', '2026-11-01'],
    ['2024-02-29', '2024-02-01'],
    ['2026-12-31', '2026-12-01'],
  ];
  for (const [input, expected] of cases) {
    test(`${input} → ${expected}`, () => assert.equal(monthStartOf(input), expected));
  }
});

describe('addMonthsToMonthStart', () => {
  const cases: Array<[string, number, string]> = [
    ['2026-11-01', 0, '2026-11-01'],
    ['2026-11-01', 1, '2026-12-01'],
    ['2026-11-01', 2, '2027-01-01'],
    ['2026-01-01', -1, '2025-12-01'],
    ['2026-11-01', -16, '2025-07-01'],
    ['2026-11-01', -17, '2025-06-01'],
    ['2026-11-01', -23, '2024-12-01'],
    ['2026-11-01', -24, '2024-11-01'],
    ['2026-11-01', -35, '2023-12-01'],
    ['2026-12-01', 12, '2027-12-01'],
    ['2026-12-01', 13, '2028-01-01'],
  ];
  for (const [start, months, expected] of cases) {
    test(`${start} ${months >= 0 ? '+' : ''}${months} → ${expected}`, () => {
      assert.equal(addMonthsToMonthStart(start, months), expected);
    });
  }
  test('rejects a date that is not a month start, and fractional months', () => {
    assert.throws(() => addMonthsToMonthStart('2026-11-02', 1), RangeError);
    assert.throws(() => addMonthsToMonthStart('2026-11-01', 1.5), RangeError);
  });
});

describe('monthsBetween', () => {
  const cases: Array<[string, string, number]> = [
    ['2026-10-31', '2026-11-01', 1],
    ['2026-11-01', '2026-11-30', 0],
    ['2025-12-31', '2026-01-01', 1],
    ['2026-11-22', '2025-11-22', -12],
  ];
  for (const [a, b, expected] of cases) {
    test(`${a} → ${b} = ${expected}`, () => assert.equal(monthsBetween(a, b), expected));
  }
});

describe('addDays', () => {
  const cases: Array<[string, number, string]> = [
    ['2026-11-22', 0, '2026-11-22'],
    ['2026-11-22', 9, '2026-12-01'],
    ['2026-03-01', -1, '2026-02-28'],
    ['2024-03-01', -1, '2024-02-29'],
    ['2026-12-31', 1, '2027-01-01'],
    ['2026-11-22', -90, '2026-08-24'],
  ];
  for (const [date, n, expected] of cases) {
    test(`${date} ${n >= 0 ? '+' : ''}${n} → ${expected}`, () => assert.equal(addDays(date, n), expected));
  }
});

describe('formatDateEs', () => {
  const cases: Array<[string, string]> = [
    ['2026-11-22', '22/11/2026'],
    ['2024-02-05', '05/02/2024'],
    ['not a date', 'not a date'],
    ['', ''],
  ];
  for (const [input, expected] of cases) {
    test(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => assert.equal(formatDateEs(input), expected));
  }
});

describe('formatDateTimeEs', () => {
  test('shows local wall time in the zone', () => {
    assert.equal(formatDateTimeEs('2026-11-22T03:05:00.000Z', 'America/Bogota'), '21/11/2026 22:05');
    assert.equal(formatDateTimeEs(new Date('2026-11-22T05:00:00.000Z'), 'America/Bogota'), '22/11/2026 00:00');
    assert.equal(formatDateTimeEs('2026-11-22T10:00:00.000Z', 'UTC'), '22/11/2026 10:00');
  });
  test('an unparseable timestamp is returned unchanged', () => {
    assert.equal(formatDateTimeEs('garbage', 'UTC'), 'garbage');
  });
  test('follows a daylight-saving change within the day it happens', () => {
    // New York: 2026-03-08 02:00 EST jumps to 03:00 EDT (07:00Z); 2026-11-01 02:00 EDT falls back to 01:00 EST.
    assert.equal(formatDateTimeEs('2026-03-08T06:59:00.000Z', 'America/New_York'), '08/03/2026 01:59');
    assert.equal(formatDateTimeEs('2026-03-08T07:00:00.000Z', 'America/New_York'), '08/03/2026 03:00');
    assert.equal(formatDateTimeEs('2026-03-09T12:00:00.000Z', 'America/New_York'), '09/03/2026 08:00');
    assert.equal(formatDateTimeEs('2026-11-01T05:30:00.000Z', 'America/New_York'), '01/11/2026 01:30');
    assert.equal(formatDateTimeEs('2026-11-01T06:30:00.000Z', 'America/New_York'), '01/11/2026 01:30');
    assert.equal(formatDateTimeEs('2026-11-01T07:30:00.000Z', 'America/New_York'), '01/11/2026 02:30');
  });
  test('agrees with Intl for instants spread over decades in several zones', () => {
    const zones = ['America/Bogota', 'America/New_York', 'Europe/Madrid', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'UTC'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < 3000; i++) {
      const zone = zones[i % zones.length]!;
      const at = new Date(Date.UTC(1970, 0, 1) + Math.floor(next() * 80 * 365.25 * 86_400_000));
      const f = new Intl.DateTimeFormat('en-GB', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
      const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, x.value]));
      assert.equal(formatDateTimeEs(at, zone), `${p.day}/${p.month}/${p.year} ${p.hour}:${p.minute}`, `${at.toISOString()} in ${zone}`);
    }
  });
});

describe('addYears and parseCalendarDate', () => {
  test('the same day n years away; 29 February becomes 28 February in a common year', () => {
    assert.equal(addYears('2026-11-24', -120), '1906-11-24');
    assert.equal(addYears('2024-02-29', -1), '2023-02-28');
    assert.equal(addYears('2024-02-29', -4), '2020-02-29');
  });
  test('parseCalendarDate accepts real days of any year, parseIsoDate only 1900..2100', () => {
    assert.equal(parseCalendarDate('1800-01-01'), '1800-01-01');
    assert.equal(parseCalendarDate('1800-02-29'), null, '1800 was not a leap year');
    assert.equal(parseCalendarDate('0000-01-01'), null);
    assert.equal(parseCalendarDate('01/01/1800'), null);
    assert.equal(parseIsoDate('1800-01-01'), null);
  });
});

describe('zoneOffsetAt', () => {
  test("a zone's offset on a day from its rules: Bogotá −05:00 all year, New York by daylight saving, UTC", () => {
    assert.equal(zoneOffsetAt('America/Bogota', '2026-01-15', 8 * 60), '-05:00');
    assert.equal(zoneOffsetAt('America/Bogota', '2026-07-15', 23 * 60 + 59), '-05:00');
    assert.equal(zoneOffsetAt('America/New_York', '2026-07-15', 12 * 60), '-04:00');
    assert.equal(zoneOffsetAt('America/New_York', '2026-01-15', 12 * 60), '-05:00');
    assert.equal(zoneOffsetAt('Asia/Kolkata', '2026-01-15', 0), '+05:30');
    assert.equal(zoneOffsetAt('UTC', '2026-01-15', 0), '+00:00');
  });
});

test('zoneOffsetAt on the day a zone changes its offset: each side of the change', () => {
  // New York moved its clocks from 02:00 (−05:00) to 03:00 (−04:00) on 2026-03-08.
  assert.equal(zoneOffsetAt('America/New_York', '2026-03-08', 60), '-05:00');
  assert.equal(zoneOffsetAt('America/New_York', '2026-03-08', 12 * 60), '-04:00');
  assert.equal(zoneOffsetAt('America/New_York', '2026-03-07', 12 * 60), '-05:00');
});
