import type { Context } from 'koa';
import type { VersionInfo } from '../app.js';

export function createVersionHandler(version: VersionInfo) {
  const body = Buffer.from(`${JSON.stringify(version, null, 2)}\n`);
  return function versionHandler(ctx: Context): void {
    ctx.status = 200;
    ctx.set('Content-Type', 'application/json');
    ctx.body = body;
  };
}
