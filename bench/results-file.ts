// Where a bench run's output is saved: bench/results/<date>-<commit>.txt, or with -2, -3... when a run of the same
// commit that day is already there. A second run is a figure of its own (this VM's spread), never a replacement.
import { existsSync } from 'node:fs';
import path from 'node:path';

export function freshResultPath(dir: string, date: string, commit: string): string {
  let file = path.join(dir, `${date}-${commit}.txt`);
  for (let n = 2; existsSync(file); n++) file = path.join(dir, `${date}-${commit}-${n}.txt`);
  return file;
}
