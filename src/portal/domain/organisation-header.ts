/**
 * The offers register's `x-organisation` in the portal's quick starts and in the reference's try-it.
 * That register refuses a call without it (400 `organisation-required`); its value is the identifier of
 * a sandbox organisation the caller belongs to.
 */
export const ORGANISATION_HEADER = 'x-organisation';

/** The services whose every call needs `x-organisation` (the register names it in its descriptions). */
export const ORGANISATION_HEADER_SERVICES: ReadonlySet<string> = new Set(['disclose']);
