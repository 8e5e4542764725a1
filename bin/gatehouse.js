#!/usr/bin/env node
// The `gatehouse` command. Runs the compiled server from dist/ (built by `npm ci` through the prepare script);
// in a source checkout without a build it falls back to running the TypeScript through tsx.
// `gatehouse credential ...` (kubectl's exec credential plugin) loads only its own module, so that kubectl does
// not wait for the whole server to load each time it asks for a credential.
// Starting the server from a dist/ older than its sources warns (one line on stderr) and still starts.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { staleBuildWarning } from './stale-build.js';

const credential = process.argv[2] === 'credential';
const module = credential ? 'cli/credential' : 'main';
const compiled = new URL(`../dist/gateway/${module}.js`, import.meta.url);

let entry;
if (existsSync(compiled)) {
  if (!credential) {
    const warning = staleBuildWarning(fileURLToPath(new URL('..', import.meta.url)), fileURLToPath(compiled));
    if (warning) process.stderr.write(`${warning}\n`);
  }
  entry = await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  entry = await import(new URL(`../gateway/${module}.ts`, import.meta.url).href);
}
if (credential) {
  process.exitCode = await entry.runCredential(process.argv.slice(3), {
    env: process.env,
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
  });
} else {
  await entry.main(process.argv.slice(2));
}
