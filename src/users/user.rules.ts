import { charCount } from '../shared/text.js';
import { encodeLocation } from '../web/location.js';

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;
export const USERNAME_MAX = 150;

/** The key a user name is unique by: trimmed and lower-cased. */
export const usernameKey = (username: string): string => username.trim().toLowerCase();


/** Spanish error for an unacceptable user name, or null. */
export function validateUsername(username: string): string | null {
  const u = username.trim();
  if (u.length === 0) return 'Escriba un nombre de usuario.';
  if (charCount(u) > USERNAME_MAX) return `El nombre de usuario admite hasta ${USERNAME_MAX} caracteres.`;
  if (!/^[\p{L}\p{N}@.+_-]+$/u.test(u)) return 'Use solo letras, números y los signos @ . + - _ (sin espacios).';
  return null;
}

/** Said when a password and its repetition differ. */
export const PASSWORD_MISMATCH = 'Las contraseñas no coinciden.';

/** Spanish error for a weak or unacceptable password, or null (decisions §1). */
export function validatePassword(password: string, username: string): string | null {
  const length = charCount(password);
  if (length < PASSWORD_MIN) return `La contraseña debe tener al menos ${PASSWORD_MIN} caracteres.`;
  if (length > PASSWORD_MAX) return `La contraseña admite hasta ${PASSWORD_MAX} caracteres.`;
  if (usernameKey(password) === usernameKey(username)) return 'La contraseña no puede ser igual al nombre de usuario.';
  return null;
}

/**
 * `next` is honoured only when it is a relative path on this site: never //host, a scheme, a backslash or a
 * control character (browsers drop tabs and line breaks from URLs: "/\t/host" would become "//host"). Resolves to
 * the target as a Location header carries it (non-ASCII percent-encoded as UTF-8), or null.
 */
export function safeNext(next: unknown): string | null {
  if (typeof next !== 'string' || next.length === 0 || next.length > 2000) return null;
  if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return null;
  if (/[\u0000-\u001F\u007F-\u009F\u2028\u2029]/.test(next)) return null;
  if (next.startsWith('/users/login') || next.startsWith('/users/logout')) return null;
  return encodeLocation(next);
}

export const LOCK_FAILURES = 5;
export const LOCK_WINDOW_MS = 15 * 60_000;

/**
 * Locked when the last five failures fell within 15 minutes and the latest is less than 15 minutes old.
 * `recentFailures` are ISO times, newest first.
 */
export function isLocked(recentFailures: readonly string[], now: Date): boolean {
  if (recentFailures.length < LOCK_FAILURES) return false;
  const newest = Date.parse(recentFailures[0]!);
  const fifth = Date.parse(recentFailures[LOCK_FAILURES - 1]!);
  return newest - fifth <= LOCK_WINDOW_MS && now.getTime() - newest < LOCK_WINDOW_MS;
}
