#!/usr/bin/env node
// The `gatehouse` command. Runs the compiled server from dist/ (built by `npm ci` through the prepare script);
// in a source checkout without a build it falls back to running the TypeScript through tsx.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/gateway/main.js', import.meta.url);

let entry;
if (existsSync(compiled)) {
  entry = await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  entry = await import(new URL('../gateway/main.ts', import.meta.url).href);
}
await entry.main(process.argv.slice(2));
