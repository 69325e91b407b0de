/**
 * What a domain rule or the state of the data refused, made by the factories below rather than by a class per
 * case (docs/architecture.md). `kind` says how the web layer answers when no route handles it first:
 * - not_found: what the request names does not exist (404 page);
 * - conflict: the data changed under the request, or a rule refuses the change (409 page; routes usually turn it
 *   into a message or a form error first);
 * - actor_inactive: the acting user was deactivated mid-request (nothing kept; back to the login page).
 * `code` names the case (routes test for it); `details` carries what a message needs.
 */
export type DomainErrorKind = 'not_found' | 'conflict' | 'actor_inactive';

export class DomainError<Details extends Record<string, unknown> = Record<string, unknown>> extends Error {
  override name = 'DomainError';
  constructor(
    readonly kind: DomainErrorKind,
    readonly code: string,
    readonly details: Details,
  ) {
    super(`${kind}: ${code}`);
  }
}

export const notFound = (code: string): DomainError => new DomainError('not_found', code, {});

export const conflict = <Details extends Record<string, unknown> = Record<string, never>>(code: string, details?: Details): DomainError<Details> =>
  new DomainError('conflict', code, details ?? ({} as Details));

export const actorInactive = (): DomainError => new DomainError('actor_inactive', 'actor_inactive', {});

/** Whether `err` is the domain error `code` (and so carries its details). */
export function isDomainError<Details extends Record<string, unknown> = Record<string, unknown>>(err: unknown, code: string): err is DomainError<Details> {
  return err instanceof DomainError && err.code === code;
}
