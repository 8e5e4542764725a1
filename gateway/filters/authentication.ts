// Authentication filter: runs the authenticator and attaches the user. A credential that is presented but not
// accepted, or no identity at all (anonymous disabled), is a 401 with kube-apiserver's plain "Unauthorized"; the
// reason goes to onFailure (a log), never to the client, and never with the credential itself.
// Anonymous requests are the authenticator's business (authn/anonymous.ts), so that --anonymous-auth=false needs
// nothing here.
import type { Context, Next } from 'koa';
import { errors } from '../../api/meta/errors.js';
import { AuthenticationError, type Authenticator } from '../authn/authenticator.js';
import { deleteHeaders } from '../authn/header-values.js';
import { setUser } from '../request/user.js';

const isAuthorization = (name: string): boolean => name === 'authorization';

export interface AuthenticationFilterOptions {
  onFailure?: (reason: string, ctx: Context) => void;
}

export function createAuthenticationFilter(authenticator: Authenticator, opts: AuthenticationFilterOptions = {}) {
  return async function authenticationFilter(ctx: Context, next: Next): Promise<void> {
    let result;
    try {
      result = await authenticator.authenticate(ctx.req);
    } catch (e) {
      if (!(e instanceof AuthenticationError)) throw e;
      opts.onFailure?.(e.message, ctx);
      throw errors.unauthorized();
    }
    if (!result) {
      opts.onFailure?.('no credentials provided', ctx);
      throw errors.unauthorized();
    }
    setUser(ctx, result.user);
    // As upstream: once accepted, the credential does not travel further (logs, proxied requests), in no view of
    // the headers Node keeps.
    deleteHeaders(ctx.req, isAuthorization);
    await next();
  };
}
