export type SessionState = 'valid' | 'idle_expired' | 'absolute_expired';

/** Whether a session may still be used at `now`. Times are ISO 8601 strings. */
export function sessionState(
  session: { createdAt: string; lastSeenAt: string },
  now: Date,
  idleMinutes: number,
  absoluteHours: number,
): SessionState {
  const t = now.getTime();
  if (t - Date.parse(session.createdAt) >= absoluteHours * 3_600_000) return 'absolute_expired';
  if (t - Date.parse(session.lastSeenAt) >= idleMinutes * 60_000) return 'idle_expired';
  return 'valid';
}

/** Writing last_seen_at on every request would make every page a write; a minute of slack is enough. */
export function needsTouch(lastSeenAt: string, now: Date): boolean {
  return now.getTime() - Date.parse(lastSeenAt) >= 60_000;
}
