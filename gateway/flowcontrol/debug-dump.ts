// /debug/api_priority_and_fairness/dump_priority_levels, dump_queues and dump_requests in upstream's text format:
// comma-separated columns padded into alignment (upstream writes them through a tabwriter), one header row.
import type { Dispatcher } from './dispatcher.js';

export const DEBUG_PREFIX = '/debug/api_priority_and_fairness/';

/** Cells joined by ", " and padded so that every column starts at the same place; no trailing comma. */
export function alignedRows(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length + 1)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : `${cell},`.padEnd(widths[i])))
        .join(' ')
        .replace(/\s+$/, ''),
    )
    .map((line) => `${line}\n`)
    .join('');
}

const seatSeconds = (seatMs: number): string => `${(seatMs / 1000).toFixed(8)}ss`;

export function dumpPriorityLevels(dispatcher: Dispatcher): string {
  const rows = [
    [
      'PriorityLevelName',
      'ActiveQueues',
      'IsIdle',
      'IsQuiescing',
      'WaitingRequests',
      'ExecutingRequests',
      'DispatchedRequests',
      'RejectedRequests',
      'TimedoutRequests',
      'CancelledRequests',
    ],
  ];
  for (const [name, level] of dispatcher.levelList()) {
    const qs = level.queueSet;
    const active = qs.queueStates().filter((q) => q.waiting > 0 || q.executing > 0).length;
    rows.push([
      name,
      String(active),
      String(qs.waiting === 0 && qs.executing === 0),
      'false',
      String(qs.waiting),
      String(qs.executing),
      String(level.dispatched),
      String(level.rejected),
      String(level.timedOut),
      String(level.cancelled),
    ]);
  }
  return alignedRows(rows);
}

export function dumpQueues(dispatcher: Dispatcher): string {
  const rows = [
    [
      'PriorityLevelName',
      'Index',
      'PendingRequests',
      'ExecutingRequests',
      'SeatsInUse',
      'NextDispatchR',
      'InitialSeatsSum',
      'MaxSeatsSum',
      'TotalWorkSum',
    ],
  ];
  for (const [name, level] of dispatcher.levelList()) {
    const waiting = level.queueSet.waitingRequests();
    for (const q of level.queueSet.queueStates()) {
      const mine = waiting.filter((w) => w.queue === q.index).map((w) => w.request.estimate);
      const initial = mine.reduce((sum, e) => sum + e.initialSeats, 0);
      const max = mine.reduce((sum, e) => sum + Math.max(e.initialSeats, e.finalSeats), 0);
      const work = mine.reduce((sum, e) => sum + e.initialSeats * 3 + e.finalSeats * e.additionalLatencyMs, 0);
      rows.push([
        name,
        String(q.index),
        String(q.waiting),
        String(q.executing),
        String(q.seatsInUse),
        seatSeconds(q.nextDispatchR),
        String(initial),
        String(max),
        seatSeconds(work),
      ]);
    }
  }
  return alignedRows(rows);
}

/** `includeRequestDetails` adds who asked what, as upstream's ?includeRequestDetails=1. */
export function dumpRequests(dispatcher: Dispatcher, includeRequestDetails: boolean): string {
  const header = [
    'PriorityLevelName',
    'FlowSchemaName',
    'QueueIndex',
    'RequestIndexInQueue',
    'FlowDistingsher',
    'ArriveTime',
    'InitialSeats',
    'FinalSeats',
    'AdditionalLatency',
  ];
  const rows = [includeRequestDetails ? [...header, 'UserName', 'Verb', 'APIPath'] : header];
  for (const [name, level] of dispatcher.levelList()) {
    // upstream prints one placeholder line for each exempt level, which never queues.
    if (level.settings.exempt) {
      rows.push([name, ...Array<string>(header.length - 1).fill('<none>')]);
      continue;
    }
    for (const { request, queue, position } of level.queueSet.waitingRequests()) {
      const row = [
        name,
        request.schema,
        String(queue),
        String(position),
        request.distinguisher,
        new Date(request.arrivedAt).toISOString(),
        String(request.estimate.initialSeats),
        String(request.estimate.finalSeats),
        `${request.estimate.additionalLatencyMs}ms`,
      ];
      rows.push(includeRequestDetails ? [...row, request.user, request.verb, request.path] : row);
    }
  }
  return alignedRows(rows);
}

/** The dump a path names, or undefined for any other path. */
export function debugDump(dispatcher: Dispatcher, path: string, query: URLSearchParams): string | undefined {
  switch (path) {
    case `${DEBUG_PREFIX}dump_priority_levels`:
      return dumpPriorityLevels(dispatcher);
    case `${DEBUG_PREFIX}dump_queues`:
      return dumpQueues(dispatcher);
    case `${DEBUG_PREFIX}dump_requests`: {
      const details = query.get('includeRequestDetails');
      return dumpRequests(dispatcher, details !== null && details !== '0' && details.toLowerCase() !== 'false');
    }
    default:
      return undefined;
  }
}
