// What a request costs in seats, after upstream's request/ work estimators (apiserver/pkg/util/flowcontrol/request):
// a list by the objects it will go through (100 objects a seat, at most 10 seats), a watch like the list of its
// initial events when it sends them (and only until it has), a mutating request one seat while it runs plus, after
// it, seats for the watch events it fans out (one seat per 10 watchers, held 5 ms), everything else one seat.
import type { RequestInfo } from '../request/request-info.js';

export interface WorkEstimate {
  /** Seats held while the request is served. */
  initialSeats: number;
  /** Seats held after it, for `additionalLatencyMs`: the cost of the watch events a write causes. */
  finalSeats: number;
  additionalLatencyMs: number;
}

export const MINIMUM_SEATS = 1;
export const MAXIMUM_SEATS = 10;
const OBJECTS_PER_SEAT = 100;
const WATCHES_PER_SEAT = 10;
const EVENT_ADDITIONAL_DURATION_MS = 5;
const MUTATING_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

export interface EstimatorSources {
  /** Objects stored for the request's resource, by storage's periodic count; undefined when not counted. */
  objectCount(info: RequestInfo): number | undefined;
  /** Open watches that see a write to the request's resource and namespace. */
  watchCount(info: RequestInfo): number;
}

const ONE_SEAT: WorkEstimate = { initialSeats: MINIMUM_SEATS, finalSeats: 0, additionalLatencyMs: 0 };

/** `maxSeats` caps every estimate: never more than the level could ever give (upstream bounds it by the level too). */
export function estimateWork(
  info: RequestInfo,
  query: URLSearchParams,
  sources: EstimatorSources,
  maxSeats = MAXIMUM_SEATS,
): WorkEstimate {
  const cap = Math.max(MINIMUM_SEATS, Math.min(MAXIMUM_SEATS, maxSeats));
  if (!info.isResourceRequest) return ONE_SEAT;
  if (info.verb === 'list') return listEstimate(info, query, sources, cap);
  // A watch that begins with the current state (no resourceVersion, or sendInitialEvents) costs that state's list.
  if (info.verb === 'watch') {
    const rv = query.get('resourceVersion');
    const sendsInitial = query.get('sendInitialEvents') === 'true' || rv === null || rv === '' || rv === '0';
    return sendsInitial ? listEstimate(info, query, sources, cap) : ONE_SEAT;
  }
  if (MUTATING_VERBS.has(info.verb)) {
    const watchers = sources.watchCount(info);
    if (watchers < WATCHES_PER_SEAT) return ONE_SEAT;
    const wanted = Math.ceil(watchers / WATCHES_PER_SEAT);
    const finalSeats = Math.min(wanted, cap);
    // Fewer seats than the fan-out wants are held longer, so that the work (seats times time) stays the same.
    return {
      initialSeats: MINIMUM_SEATS,
      finalSeats,
      additionalLatencyMs: (EVENT_ADDITIONAL_DURATION_MS * wanted) / finalSeats,
    };
  }
  return ONE_SEAT;
}

function listEstimate(info: RequestInfo, query: URLSearchParams, sources: EstimatorSources, cap: number): WorkEstimate {
  const stored = sources.objectCount(info);
  // Not counted (yet, or a resource storage does not hold): upstream assigns the minimum.
  if (stored === undefined || stored < 0) return ONE_SEAT;
  const limit = Number(query.get('limit') ?? 0);
  const returned = limit > 0 && limit < stored ? limit : stored;
  const selective = Boolean(query.get('labelSelector') || query.get('fieldSelector'));
  // From the watch cache (resourceVersion=0) every stored object is gone through; from storage a selector reads the
  // whole collection to fill a page, and a plain page reads about twice what it returns (upstream's estimate).
  const objects = query.get('resourceVersion') === '0' ? stored : selective ? stored + returned : 2 * returned;
  const seats = Math.ceil(objects / OBJECTS_PER_SEAT);
  return { initialSeats: Math.min(cap, Math.max(MINIMUM_SEATS, seats)), finalSeats: 0, additionalLatencyMs: 0 };
}

export const maxSeatsOf = (estimate: WorkEstimate): number => Math.max(estimate.initialSeats, estimate.finalSeats);
