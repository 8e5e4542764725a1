import type { Context } from 'koa';
import type { UserInfo } from '../../api/meta/user.js';

/** The identity the authentication filter attached; every filter after it may rely on it. */
export function userOf(ctx: Context): UserInfo {
  return ctx.state.user as UserInfo;
}

export function setUser(ctx: Context, user: UserInfo): void {
  ctx.state.user = user;
}
