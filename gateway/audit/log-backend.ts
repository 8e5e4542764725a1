// The log backend (--audit-log-path): one JSON event per line, appended to the file (`-` is standard output) and
// rotated by size (log-rotation.ts). It delivers batches of lines: one line in the blocking modes, several in batch
// mode.
import type { BatchSender } from './buffered.js';
import { openRotatingFile, type RotationSettings } from './log-rotation.js';

export function createLogSender(
  file: string,
  rotation: RotationSettings,
  onHousekeepingError: (err: Error) => void,
): BatchSender {
  if (file === '-') {
    return {
      name: 'log',
      send: (lines) =>
        new Promise((resolve, reject) =>
          process.stdout.write(`${lines.join('\n')}\n`, (err) => (err ? reject(err) : resolve())),
        ),
      close: () => Promise.resolve(),
    };
  }
  const out = openRotatingFile(file, rotation, onHousekeepingError);
  return {
    name: 'log',
    send: (lines) =>
      new Promise((resolve, reject) => out.write(`${lines.join('\n')}\n`, (err) => (err ? reject(err) : resolve()))),
    close: () => out.close(),
  };
}
