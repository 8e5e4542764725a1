import { isStatusError, type StatusError } from '../../api/meta/errors.js';

/** Runs fn and returns the StatusError it throws; fails when it throws nothing or something else. */
export function statusErrorOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (isStatusError(e)) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

/** What `promise` rejects with; fails the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}
