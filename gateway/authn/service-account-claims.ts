// The claims of a service-account token and the identity they stand for, named as kube-apiserver names them so that
// tokens stay readable by the tools that inspect them: the registered claims (iss, sub, aud, exp, iat, nbf, jti) and
// the private claim `kubernetes.io` {namespace, serviceaccount {name, uid}, and at most one bound object: pod,
// secret or node, each {name, uid}; a pod-bound token may name the pod's node as well}.
import type { UserInfo } from '../../api/meta/user.js';

export const PRIVATE_CLAIM = 'kubernetes.io';
export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';
export const ALL_SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';

/** Keys of UserInfo.extra, as upstream spells them (policies and audit tooling match on them). */
export const EXTRA_CREDENTIAL_ID = 'authentication.kubernetes.io/credential-id';
export const EXTRA_POD_NAME = 'authentication.kubernetes.io/pod-name';
export const EXTRA_POD_UID = 'authentication.kubernetes.io/pod-uid';
export const EXTRA_NODE_NAME = 'authentication.kubernetes.io/node-name';
export const EXTRA_NODE_UID = 'authentication.kubernetes.io/node-uid';

export interface ObjectRefClaim {
  name: string;
  uid: string;
}

export interface KubernetesClaim {
  namespace: string;
  serviceaccount: ObjectRefClaim;
  pod?: ObjectRefClaim;
  secret?: ObjectRefClaim;
  node?: ObjectRefClaim;
}

export interface ServiceAccountTokenClaims {
  iss: string;
  sub: string;
  aud: string[];
  /** Seconds since the epoch. */
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  [PRIVATE_CLAIM]: KubernetesClaim;
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${name}`;
}

export function serviceAccountGroups(namespace: string): string[] {
  return [ALL_SERVICE_ACCOUNTS_GROUP, `${ALL_SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

/** What an accepted token says about its bearer, once checked. */
export interface ServiceAccountInfo {
  namespace: string;
  name: string;
  uid: string;
  podName?: string;
  podUID?: string;
  nodeName?: string;
  nodeUID?: string;
  /** The token's jti. */
  jti?: string;
}

/** The identity: user system:serviceaccount:<ns>:<name>, uid the account's, the two service-account groups, extras. */
export function serviceAccountUser(info: ServiceAccountInfo): UserInfo {
  const extra: Record<string, string[]> = {};
  // Upstream sets the pod extras only as a pair, and the node uid only with a node name.
  if (info.podName && info.podUID) {
    extra[EXTRA_POD_NAME] = [info.podName];
    extra[EXTRA_POD_UID] = [info.podUID];
  }
  if (info.jti) extra[EXTRA_CREDENTIAL_ID] = [`JTI=${info.jti}`];
  if (info.nodeName) {
    extra[EXTRA_NODE_NAME] = [info.nodeName];
    if (info.nodeUID) extra[EXTRA_NODE_UID] = [info.nodeUID];
  }
  const user: UserInfo = {
    name: serviceAccountUsername(info.namespace, info.name),
    uid: info.uid,
    groups: serviceAccountGroups(info.namespace),
  };
  if (Object.keys(extra).length > 0) user.extra = extra;
  return user;
}
