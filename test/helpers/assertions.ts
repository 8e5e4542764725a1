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
