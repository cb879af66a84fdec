/**
 * The push delivery rules of the business number register's watchlists, exactly as the spec states
 * them, as pure functions of time (the caller passes the clock's "now"):
 * - each attempt waits two minutes for a 200 from the recipient;
 * - five retries follow, at 20, 90, 180, 300 and 450 minutes after the ORIGINAL attempt;
 * - when the last retry fails, the watchlist is suspended and its administrator is emailed;
 * - a watchlist suspended for one month without resumption is end-dated.
 */
export const ACKNOWLEDGEMENT_WINDOW_MS = 2 * 60_000;
export const RETRY_OFFSETS_MINUTES = [20, 90, 180, 300, 450] as const;
export const MAX_ATTEMPTS = 1 + RETRY_OFFSETS_MINUTES.length;

/** When attempt number `attempt` (1 = the original) is due, given when the original was made. */
export function attemptDueAt(originalAttemptAt: Date, attempt: number): Date {
  if (!Number.isInteger(attempt) || attempt < 1 || attempt > MAX_ATTEMPTS) {
    throw new RangeError(`attempt must be 1 to ${MAX_ATTEMPTS}, got ${attempt}`);
  }
  if (attempt === 1) return new Date(originalAttemptAt);
  return new Date(originalAttemptAt.getTime() + RETRY_OFFSETS_MINUTES[attempt - 2]! * 60_000);
}

export type AttemptOutcome =
  | { kind: 'delivered' }
  | { kind: 'retry'; nextAttempt: number; dueAt: Date }
  | { kind: 'suspend' };

/**
 * What follows a failed or successful attempt. Only an HTTP 200 within the acknowledgement window
 * counts as delivered; any other status, a network error or a slower answer is a failure.
 */
export function afterAttempt(input: {
  attempt: number;
  originalAttemptAt: Date;
  status: number | undefined;
  elapsedMs: number;
}): AttemptOutcome {
  if (input.status === 200 && input.elapsedMs <= ACKNOWLEDGEMENT_WINDOW_MS) return { kind: 'delivered' };
  if (input.attempt >= MAX_ATTEMPTS) return { kind: 'suspend' };
  const nextAttempt = input.attempt + 1;
  return { kind: 'retry', nextAttempt, dueAt: attemptDueAt(input.originalAttemptAt, nextAttempt) };
}

/** The moment a suspended watchlist is end-dated: one calendar month after its suspension. */
export function endDateFor(suspendedAt: Date): Date {
  const end = new Date(suspendedAt);
  const day = end.getUTCDate();
  end.setUTCMonth(end.getUTCMonth() + 1);
  // 31 January + 1 month is the last day of February, not 3 March.
  if (end.getUTCDate() !== day) end.setUTCDate(0);
  return end;
}

export type WatchlistState = 'active' | 'suspended' | 'end-dated';

/** The watchlist table of the spec as a transition function. */
export function nextState(
  state: WatchlistState,
  trigger: 'last-retry-failed' | 'resume' | 'month-elapsed' | 'change',
): WatchlistState {
  switch (trigger) {
    case 'last-retry-failed':
      return state === 'active' ? 'suspended' : state;
    case 'resume':
      if (state === 'end-dated') throw new RangeError('an end-dated watchlist cannot be resumed');
      return 'active';
    case 'month-elapsed':
      return state === 'suspended' ? 'end-dated' : state;
    case 'change':
      return state;
  }
}
