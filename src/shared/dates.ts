// Calendar helpers for 'YYYY-MM-DD' strings.
//
// Dates are plain calendar days, never instants: all arithmetic is integer arithmetic on year/month/day so
// the host's time zone can never shift a date. Only `todayIn` and `formatDateTimeEs` look at an instant, and
// they take the time zone explicitly.

export const MIN_YEAR = 1900;
export const MAX_YEAR = 2100;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_MONTH = /^(\d{4})-(\d{2})$/;

export interface YearMonthDay {
  year: number;
  month: number; // 1..12
  day: number; // 1..31
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

function pad4(n: number): string {
  return String(n).padStart(4, '0');
}

export function toIsoDate({ year, month, day }: YearMonthDay): string {
  return `${pad4(year)}-${pad2(month)}-${pad2(day)}`;
}

/**
 * Strict parser for user input: 'YYYY-MM-DD' (surrounding blanks allowed) that is a real calendar day with a
 * year in 1900..2100. Returns the canonical string, or null for anything else.
 */
export function parseIsoDate(input: string): string | null {
  const date = parseCalendarDate(input);
  if (date === null) return null;
  const year = Number(date.slice(0, 4));
  return year < MIN_YEAR || year > MAX_YEAR ? null : date;
}

/**
 * 'YYYY-MM-DD' that is a real calendar day of any year 0001..9999, or null. For rules that must say why a real
 * date is refused (a birth date 200 years ago is a date, just not a possible one); store only what parseIsoDate
 * or a narrower rule accepts.
 */
export function parseCalendarDate(input: string): string | null {
  if (typeof input !== 'string') return null;
  const m = ISO_DATE.exec(input.trim());
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (year < 1) return null;
  if (month < 1 || month > 12) return null;
  if (day < 1 || day > daysInMonth(year, month)) return null;
  return toIsoDate({ year, month, day });
}

/** 'YYYY-MM' (e.g. the dashboard's `?mes=2026-11`), year 1900..2100. Returns the canonical string or null. */
export function parseIsoMonth(input: string): string | null {
  if (typeof input !== 'string') return null;
  const m = ISO_MONTH.exec(input.trim());
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  if (year < MIN_YEAR || year > MAX_YEAR || month < 1 || month > 12) return null;
  return `${pad4(year)}-${pad2(month)}`;
}

/**
 * Splits a date already known to be well-formed (stored values, `todayIn` output). Throws on garbage because
 * that is a programming error, not user input: user input goes through `parseIsoDate` first.
 */
export function splitIsoDate(iso: string): YearMonthDay {
  const m = ISO_DATE.exec(iso);
  if (!m) throw new RangeError(`Not a YYYY-MM-DD date: ${JSON.stringify(iso)}`);
  return { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
}

// One formatter per zone: building Intl formatters is slow and `todayIn` runs on every request.
const dayFormatters = new Map<string, Intl.DateTimeFormat>();

function dayFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = dayFormatters.get(timeZone);
  if (!f) {
    // hourCycle h23 keeps midnight as 00 (some ICU versions print 24 with hour12: false).
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    dayFormatters.set(timeZone, f);
  }
  return f;
}

type ZonedParts = { year: number; month: number; day: number; hour: number; minute: number };

// formatToParts is the costly part of rendering dates (history tables, timelines, "today" on every request), and
// the instants shown are spread over years, so a cache of results per minute misses. What is cached instead is the
// zone's offset for a whole UTC day, when the offset is the same at both ends of the day (always in Bogotá; every
// day but the two transition days where there is daylight saving time); the parts then come from UTC arithmetic.
// A day whose ends differ is computed minute by minute, as before.
const DAY_MS = 86_400_000;
const offsetCache = new Map<string, number | null>();
const OFFSET_CACHE_LIMIT = 4096;

function offsetAt(timeZone: string, ms: number): number {
  const p = computeZonedParts(timeZone, new Date(ms));
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute) - Math.floor(ms / 60_000) * 60_000;
}

function dayOffset(timeZone: string, day: number): number | null {
  const key = `${timeZone} ${day}`;
  const hit = offsetCache.get(key);
  if (hit !== undefined) return hit;
  const start = offsetAt(timeZone, day * DAY_MS);
  const end = offsetAt(timeZone, (day + 1) * DAY_MS - 60_000);
  const offset = start === end ? start : null;
  if (offsetCache.size >= OFFSET_CACHE_LIMIT) offsetCache.clear();
  offsetCache.set(key, offset);
  return offset;
}

function zonedParts(timeZone: string, at: Date): ZonedParts {
  const minuteMs = Math.floor(at.getTime() / 60_000) * 60_000;
  const offset = dayOffset(timeZone, Math.floor(minuteMs / DAY_MS));
  if (offset === null) return computeZonedParts(timeZone, new Date(minuteMs));
  const local = new Date(minuteMs + offset);
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
  };
}

function computeZonedParts(timeZone: string, at: Date): ZonedParts {
  const parts = dayFormatter(timeZone).formatToParts(at);
  const get = (type: Intl.DateTimeFormatPartTypes): number => {
    const part = parts.find((p) => p.type === type);
    if (!part) throw new RangeError(`Intl did not return ${type}`);
    return Number(part.value);
  };
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour') % 24, minute: get('minute') };
}

/** The calendar day of `now` in the IANA zone (throws RangeError for an unknown zone). */
export function todayIn(timeZone: string, now: Date): string {
  const { year, month, day } = zonedParts(timeZone, now);
  return toIsoDate({ year, month, day });
}

/** 'YYYY-MM-01' of the month containing `date`. */
export function monthStartOf(date: string): string {
  const { year, month } = splitIsoDate(date);
  return toIsoDate({ year, month, day: 1 });
}

/** Moves a month start by `months` (negative goes back): ('2026-01-01', -1) → '2025-12-01'. */
export function addMonthsToMonthStart(yyyyMm01: string, months: number): string {
  if (!Number.isInteger(months)) throw new RangeError(`months must be an integer: ${months}`);
  const { year, month, day } = splitIsoDate(yyyyMm01);
  if (day !== 1) throw new RangeError(`Not a month start: ${yyyyMm01}`);
  const index = year * 12 + (month - 1) + months;
  return toIsoDate({ year: Math.floor(index / 12), month: (index % 12 + 12) % 12 + 1, day: 1 });
}

/** Whole months between the months of two dates, ignoring days: ('2026-10-31', '2026-11-01') → 1. */
export function monthsBetween(from: string, to: string): number {
  const a = splitIsoDate(from);
  const b = splitIsoDate(to);
  return (b.year - a.year) * 12 + (b.month - a.month);
}

/** Adds (or with a negative n subtracts) calendar days: ('2026-03-01', -1) → '2026-02-28'. */
export function addDays(date: string, days: number): string {
  if (!Number.isInteger(days)) throw new RangeError(`days must be an integer: ${days}`);
  const { year, month, day } = splitIsoDate(date);
  // Date.UTC is only used as a day counter here; no zone is involved.
  const d = new Date(Date.UTC(year, month - 1, day + days));
  return toIsoDate({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() });
}

/** The same day `years` years later (or earlier); 29 February becomes 28 February in a common year. */
export function addYears(date: string, years: number): string {
  if (!Number.isInteger(years)) throw new RangeError(`years must be an integer: ${years}`);
  const { year, month, day } = splitIsoDate(date);
  const y = year + years;
  return toIsoDate({ year: y, month, day: Math.min(day, daysInMonth(y, month)) });
}

/** Display form 'dd/mm/aaaa'. Anything that is not a well-formed date is returned unchanged (never throws). */
export function formatDateEs(iso: string): string {
  const m = ISO_DATE.exec(iso);
  if (!m) return iso;
  return `${m[3]}/${m[2]}/${m[1]}`;
}

// One offset formatter per zone, as for the days above.
const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

/** Minutes east of UTC of the zone at an instant, from its tz rules ('GMT-05:00' → -300; 'GMT' → 0). */
function offsetMinutesAt(timeZone: string, ms: number): number {
  let f = offsetFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    offsetFormatters.set(timeZone, f);
  }
  const name = f.formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

/**
 * The zone's UTC offset ('-05:00') at a wall-clock time of a day (minutes after its midnight), by the zone's own rules
 * (the tz database): a zone with daylight saving gets each date's offset, Colombia's is −05:00 all year.
 */
export function zoneOffsetAt(timeZone: string, date: string, minutes: number): string {
  // Most days have one offset from midnight to midnight: kept per zone and day (~5 µs of Intl per reading saved).
  const key = `${timeZone} ${date}`;
  const whole = dayOffsets.get(key);
  if (whole !== undefined) return whole;
  const first = exactOffsetAt(timeZone, date, 0);
  if (first === exactOffsetAt(timeZone, date, 24 * 60 - 1)) {
    if (dayOffsets.size >= DAY_OFFSETS_MAX) dayOffsets.clear();
    dayOffsets.set(key, first);
    return first;
  }
  return exactOffsetAt(timeZone, date, minutes);
}

const DAY_OFFSETS_MAX = 10_000;
const dayOffsets = new Map<string, string>();

function exactOffsetAt(timeZone: string, date: string, minutes: number): string {
  const wall = Date.parse(`${date}T00:00:00Z`) + minutes * 60_000;
  // The offset at the wall time read as UTC, then at the instant that gives: right except within a change's hour.
  const offset = offsetMinutesAt(timeZone, wall - offsetMinutesAt(timeZone, wall) * 60_000);
  const abs = Math.abs(offset);
  return `${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** Display form 'dd/mm/aaaa HH:mm' of an instant (ISO timestamp or Date) in the given zone. */
export function formatDateTimeEs(at: string | Date, timeZone: string): string {
  const date = typeof at === 'string' ? new Date(at) : at;
  if (Number.isNaN(date.getTime())) return typeof at === 'string' ? at : '';
  const p = zonedParts(timeZone, date);
  return `${pad2(p.day)}/${pad2(p.month)}/${pad4(p.year)} ${pad2(p.hour)}:${pad2(p.minute)}`;
}

// ---------------------------------------------------------------------------------------------------------
// The UTC instant at which a calendar day starts in a time zone, to compare audit timestamps (UTC ISO text)
// with dates typed by people in TIME_ZONE.

/** ISO instant of 00:00 on `date` in `timeZone` ('2026-11-01', 'America/Bogota' → '2026-11-01T05:00:00.000Z'). */
export function startOfDayUtc(date: string, timeZone: string): string {
  const { year, month, day } = splitIsoDate(date);
  const naive = Date.UTC(year, month - 1, day);
  // Two passes settle days on which the offset changes (daylight saving elsewhere; Bogota has none).
  let guess = naive - offsetAt(timeZone, naive);
  guess = naive - offsetAt(timeZone, guess);
  return new Date(guess).toISOString();
}
