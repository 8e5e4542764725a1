// Every flag of the gatehouse command, its kind, default and usage line: parseOptions reads values by it, --help
// prints it, and docs/flags.md is checked against it. The authorization and logging flags keep their own tables,
// spread in here.
import { AUTHORIZATION_MODES } from '../../policies/build-authorizer.js';
import { AUTHORIZATION_FLAGS } from './authorization-flags.js';
import { AUDIT_FLAGS } from '../audit/audit-flags.js';
import type { FlagSpec } from './flag-primitives.js';
import { LOGGING_FLAGS } from './logging-flags.js';
import { METRICS_FLAGS } from '../metrics/flags.js';
import { STORAGE_URL_ENV } from './storage-options.js';
import { SHARED_STATE_FLAGS } from '../shared-state/flags.js';

export type StorageBackendName = 'embedded' | 'memory' | 'postgres';
export const STORAGE_BACKENDS: readonly StorageBackendName[] = ['embedded', 'memory', 'postgres'];

export const FLAGS: Record<string, FlagSpec> = {
  'secure-port': { kind: 'int', default: '6443', usage: 'Port to serve HTTPS on; 0 picks a free port.' },
  'bind-address': {
    kind: 'string',
    default: '0.0.0.0',
    usage: 'IP address to listen on (0.0.0.0 or :: for all interfaces).',
  },
  'tls-cert-file': {
    referenceDefault: 'generated',
    kind: 'string',
    usage: 'Serving certificate (PEM). Without it a self-signed CA and certificate are generated in --cert-dir.',
  },
  'tls-private-key-file': { kind: 'string', usage: 'Private key (PEM) matching --tls-cert-file.' },
  'cert-dir': {
    kind: 'string',
    default: '<data-dir>/pki',
    usage: 'Directory of the generated certificates; ignored when --tls-cert-file is given.',
  },
  'data-dir': {
    kind: 'string',
    default: './.data',
    usage: 'Directory for the admin kubeconfig, the admin token and local state.',
  },
  'token-auth-file': { kind: 'string', usage: 'Static token file: CSV lines token,user,uid[,"group1,group2"].' },
  'client-ca-file': {
    kind: 'string',
    usage: 'PEM bundle of client CAs: a client certificate signed by one authenticates as its CN, each O a group.',
  },
  'authentication-config': {
    kind: 'string',
    usage: 'AuthenticationConfiguration file (YAML or JSON) with JWT authenticators; exclusive with --oidc-* flags.',
  },
  'oidc-issuer-url': {
    kind: 'string',
    usage: 'URL of the OpenID issuer (https only); its ID tokens authenticate. Needs --oidc-client-id.',
  },
  'oidc-client-id': { kind: 'string', usage: 'Client ID the ID tokens must be issued for (audience).' },
  'oidc-ca-file': {
    referenceDefault: 'system roots',
    kind: 'string',
    usage: "PEM bundle to verify the issuer's certificate with (default: the system roots).",
  },
  'oidc-username-claim': { kind: 'string', default: 'sub', usage: 'Claim to use as the user name.' },
  'oidc-username-prefix': {
    referenceDefault: '`<issuer-url>#`',
    kind: 'string',
    usage: "Prefix for user names; default '<issuer-url>#' for claims other than email; '-' disables.",
  },
  'oidc-groups-claim': { kind: 'string', usage: 'Claim holding the groups (string or array of strings).' },
  'oidc-groups-prefix': { kind: 'string', usage: 'Prefix for every group from --oidc-groups-claim.' },
  'oidc-required-claim': { kind: 'list', usage: 'key=value a claim must hold; repeat for more.' },
  'oidc-signing-algs': {
    kind: 'list',
    default: 'RS256',
    usage: 'Accepted JOSE signing algorithms (RS256..RS512, ES256..ES512, PS256..PS512).',
  },
  'requestheader-client-ca-file': {
    kind: 'string',
    usage:
      'PEM bundle of the CAs of authenticating proxies: only a client certificate signed by one may assert identity headers.',
  },
  'requestheader-allowed-names': {
    referenceDefault: '(any)',
    kind: 'list',
    usage: 'Common names a proxy client certificate may have; empty allows any certificate the proxy CA signed.',
  },
  'requestheader-username-headers': {
    kind: 'list',
    usage: 'Headers naming the user, first non-empty wins (usually X-Remote-User).',
  },
  'requestheader-group-headers': {
    kind: 'list',
    usage: 'Headers listing groups, every value added (usually X-Remote-Group).',
  },
  'requestheader-extra-headers-prefix': {
    kind: 'list',
    usage:
      'Header prefixes of extra attributes, the rest of the name (lowercased, %-decoded) is the key (usually X-Remote-Extra-).',
  },
  'anonymous-auth': {
    reference:
      'requests without credentials are `system:anonymous` in `system:unauthenticated`; a malformed `Bearer` header is a 401, another scheme (`Basic`) is ignored',
    kind: 'bool',
    default: 'true',
    usage: 'Serve requests without credentials as system:anonymous.',
  },
  'enable-bootstrap-token-auth': {
    reference:
      'bearer tokens `<id>.<secret>` backed by Secrets `bootstrap-token-<id>` of type `bootstrap.platform.io/token` in `platform-system`; user `system:bootstrap:<id>` in `system:bootstrappers`',
    kind: 'bool',
    default: 'false',
    usage:
      'Accept bootstrap tokens <id>.<secret> backed by Secrets of type bootstrap.platform.io/token in platform-system.',
  },
  controllers: {
    reference:
      "`*` runs the default-on controllers, `name` adds one, `-name` removes one; `serviceaccount` (a `default` ServiceAccount in every namespace) `root-ca-cert-publisher` (the ConfigMap `kube-root-ca.crt` whose `ca.crt` is the serving CA bundle) `validatingadmissionpolicy-status` (a policy's `status.observedGeneration` and `typeChecking`) `crd-naming` (a CustomResourceDefinition's accepted names and conditions), `apf-bootstrap` (the priority and fairness configuration every server starts with, put back when deleted or edited) and `flowschema-status` (a FlowSchema's `Dangling` condition) are on; `tokencleaner` (deletes expired bootstrap tokens) and `bootstrapsigner` (publishes and signs `platform-public/cluster-info`) are off by default",
    kind: 'list',
    default: '*',
    usage:
      'Controllers to run: * (those on by default), name (enable), -name (disable); tokencleaner and bootstrapsigner are off by default.',
  },
  'service-account-key-file': {
    reference:
      'PEM RSA/ECDSA keys (private or public, several per file), repeatable, verifying service-account tokens; default `--tls-private-key-file`, else a key generated once in `<cert-dir>/sa.key`',
    referenceDefault: 'see right',
    kind: 'string',
    usage:
      'PEM file of RSA or ECDSA keys (private or public, several per file) verifying service-account tokens; repeatable. Default: --tls-private-key-file, else a generated <cert-dir>/sa.key.',
  },
  'service-account-signing-key-file': {
    referenceDefault: 'first private verification key',
    kind: 'string',
    usage:
      'PEM private key (RSA or ECDSA) signing service-account tokens. Default: the first private key among the verification keys.',
  },
  'service-account-issuer': {
    kind: 'string',
    default: 'https://kubernetes.default.svc.cluster.local',
    usage: 'Issuer ("iss") of service-account tokens; repeatable: the first issues, all are accepted.',
  },
  'api-audiences': {
    referenceDefault: 'the issuers',
    kind: 'list',
    usage: 'Audiences of the API: service-account tokens must be bound to one of them (default: the issuers).',
  },
  'service-account-max-token-expiration': {
    referenceDefault: '0 (no cap)',
    kind: 'duration',
    default: '0s',
    usage: 'Longest validity of an issued token (1h to 2^32s); longer requests are shortened; 0: no cap.',
  },
  'service-account-lookup': {
    reference:
      "the account (and bound Secret/Node) must still exist with the same uid, else 401; read from this replica's cache as kube-apiserver reads its informers, and consistently only when missing there (a deletion through another replica counts once this one's log reader applied it)",
    kind: 'bool',
    default: 'true',
    usage:
      'Check on each request that the service account (and bound object) of a token still exist with the same uid.',
  },
  'authorization-mode': {
    reference:
      'ordered list of AlwaysAllow, AlwaysDeny, ABAC, RBAC, Node, Webhook (members of `system:masters` bypass them all); see [authorization.md](authorization.md)',
    kind: 'list',
    default: 'AlwaysAllow',
    usage: `Ordered authorizer list; one of ${AUTHORIZATION_MODES.join(', ')}.`,
  },
  'runtime-config': {
    kind: 'list',
    usage: 'Enable or disable APIs: api/all=false, <group>/<version>[=bool], <group>/<version>/<resource>[=bool].',
  },
  'enable-admission-plugins': {
    reference:
      "kube-apiserver 1.32's plugin names; every plugin Gatehouse has already runs (NamespaceLifecycle, NodeRestriction while the Node authorizer is in the chain, ValidatingAdmissionPolicy, ResourceQuota), so a name it does not implement is accepted with a warning and does nothing; an unknown name stops the start; see [admission.md](admission.md)",
    kind: 'list',
    usage:
      'Admission plugins to enable in addition to the default ones (kube-apiserver 1.32 names; a name Gatehouse does not implement is accepted with a warning).',
  },
  'disable-admission-plugins': {
    reference:
      'takes plugins of that list out (e.g. `NamespaceLifecycle` on a server whose namespaces live elsewhere); an unknown name, or one in both flags, stops the start',
    kind: 'list',
    usage:
      'Admission plugins to disable: NamespaceLifecycle, NodeRestriction, ValidatingAdmissionPolicy, ResourceQuota (any kube-apiserver 1.32 name is accepted).',
  },
  'feature-gates': { kind: 'list', usage: 'Feature gates: A=true,B=false.' },
  'aggregator-endpoints-file': {
    kind: 'string',
    usage:
      'YAML list of {namespace, name, port, url}: the URL each Service named by an APIService is reached at (default: https://<name>.<namespace>.svc:<port>); reloaded on change.',
  },
  'admission-review-api-group': {
    kind: 'string',
    default: 'k8s.io',
    usage:
      'Group admission webhooks receive their AdmissionReview in (and conversion webhooks their ConversionReview): k8s.io (admission.k8s.io, apiextensions.k8s.io: what webhooks written for Kubernetes expect) or platform.io (admission.platform.io, apiextensions.platform.io).',
    reference:
      "the group of the AdmissionReview admission webhooks are sent: `k8s.io` (`admission.k8s.io`, what webhooks written for Kubernetes expect) or `platform.io` (`admission.platform.io`); their answer is read in either; see [admission.md](admission.md). The ConversionReview of CustomResourceDefinitions' conversion webhooks follows the same switch (`apiextensions.k8s.io` or `apiextensions.platform.io`, [custom-resources.md](custom-resources.md))",
  },
  'proxy-client-cert-file': {
    kind: 'string',
    usage:
      'Client certificate (PEM) presented to the servers of remote APIServices when proxying to them and checking them, reloaded when it changes; needs --proxy-client-key-file.',
  },
  'proxy-client-key-file': { kind: 'string', usage: 'Private key (PEM) matching --proxy-client-cert-file.' },
  'shutdown-delay-duration': {
    reference: 'on SIGTERM `/readyz` fails first, then this delay, then watches end and the server stops',
    kind: 'duration',
    default: '0s',
    usage: 'After SIGTERM, keep serving (with /readyz failing) this long before closing.',
  },
  'shutdown-watch-termination-grace-period': {
    reference: 'after the shutdown delay, how long open watches get to end before they are closed',
    kind: 'duration',
    default: '0s',
    usage: 'After the delay, how long open watches get to end before the server closes them.',
  },
  'livez-grace-period': {
    kind: 'duration',
    default: '0s',
    usage: 'Since start, /livez treats unfinished post-start hooks as healthy for this long.',
  },
  'request-timeout': {
    reference: 'the longest a request other than a watch may take (504 after it)',
    kind: 'duration',
    default: '1m0s',
    usage: 'Default timeout for non-watch requests.',
  },
  'min-request-timeout': {
    reference:
      'seconds: a watch without `timeoutSeconds` lasts a random time between this and twice it; 0 with no `timeoutSeconds`: no timeout',
    kind: 'int',
    default: '1800',
    usage: 'Minimum watch timeout in seconds (randomised up to twice this).',
  },
  'max-request-body-bytes': {
    kind: 'int',
    default: '3145728',
    usage: 'Request bodies above this many bytes are rejected with 413.',
  },
  'goaway-chance': {
    kind: 'float',
    default: '0',
    usage:
      'To prevent HTTP/2 clients from getting stuck on a single replica, a request gets its connection closed gracefully (GOAWAY) with this probability; the client reconnects, likely to another replica behind the load balancer. Min is 0 (off), max .02 (1/50 requests); .001 (1/1000) is a recommended starting point.',
  },
  'http2-max-streams-per-connection': {
    kind: 'int',
    default: '1000',
    usage:
      "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means the HTTP/2 library's default.",
  },
  'event-ttl': {
    reference: 'Events are deleted this long after their last write (Go durations), by every replica',
    kind: 'duration',
    default: '1h0m0s',
    usage: 'Amount of time to retain events.',
  },
  'enable-priority-and-fairness': {
    reference:
      'API Priority and Fairness ([priority-and-fairness.md](priority-and-fairness.md)): requests are classified by FlowSchemas, queued fairly per priority level, and refused with 429 when their level is full; false: the simple limits of `--max-requests-inflight` and `--max-mutating-requests-inflight`',
    kind: 'bool',
    default: 'true',
    usage:
      'If true, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness',
  },
  'max-requests-inflight': {
    reference:
      "with priority and fairness, added to `--max-mutating-requests-inflight` to make the server's seats (which must be positive); without it, the non-mutating requests served at once: beyond it 429 with `Retry-After: 1` and a Status; watches and streaming subresources are not counted; `system:masters` is always served; 0: no limit",
    kind: 'int',
    default: '400',
    usage:
      "This and --max-mutating-requests-inflight are summed to determine the server's total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of non-mutating requests in flight, or a zero value disables the limit completely.",
  },
  'max-mutating-requests-inflight': {
    kind: 'int',
    default: '200',
    usage:
      "This and --max-requests-inflight are summed to determine the server's total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of mutating requests in flight, or a zero value disables the limit completely.",
  },
  'max-connections': {
    referenceDefault: 'half the open-file limit (512 if unknown)',
    kind: 'int',
    default: 'half the open-file limit',
    usage:
      'The maximum number of client connections open at once; connections beyond it are closed on accept and a line is logged (at most one a minute). Keep it well below the open-file limit (512 when that limit cannot be read). Zero for no limit.',
  },
  'read-header-timeout': {
    reference:
      "the TLS handshake and the first request head must be done this long after the TCP accept (kube-apiserver's ReadHeaderTimeout); later HTTP/1.1 heads get the 90 s idle time plus this; 0 disables",
    kind: 'duration',
    default: '32s',
    usage:
      'A connection must complete its TLS handshake and its first request headers within this long of being accepted, or it is closed. Zero disables.',
  },
  'read-body-timeout': {
    kind: 'duration',
    default: '32s',
    usage:
      'A request body must arrive whole within this long of the server starting to read it; otherwise the request fails with 504 and its stream or connection is closed. Zero disables.',
  },
  'history-window': {
    kind: 'duration',
    default: '5m0s',
    usage: 'How long past revisions stay readable (watch resume, Exact reads, continue tokens).',
  },
  'storage-backend': {
    reference: '`embedded` (state in `<data-dir>/storage`, survives restarts), `postgres`, `memory`',
    kind: 'string',
    default: 'embedded',
    usage: `Storage backend: ${STORAGE_BACKENDS.join(', ')} (embedded keeps state in --data-dir).`,
  },
  'storage-url': {
    kind: 'string',
    usage: `PostgreSQL URL for --storage-backend=postgres (or the ${STORAGE_URL_ENV} environment variable).`,
  },
  help: { kind: 'bool', default: 'false', usage: 'Print this help and exit.' },
  ...AUTHORIZATION_FLAGS,
  ...AUDIT_FLAGS,
  ...LOGGING_FLAGS,
  ...METRICS_FLAGS,
  ...SHARED_STATE_FLAGS,
};

/** kube-apiserver's own name for the history window, accepted as a synonym. */
export const ALIASES: Record<string, string> = { 'etcd-compaction-interval': 'history-window' };

export function usage(): string {
  const lines = [
    'Usage: gatehouse [flags]',
    '       gatehouse credential ... (kubectl exec credential plugin; see gatehouse credential --help)',
    '',
    'Flags:',
  ];
  const rows = Object.entries(FLAGS).map(([name, spec]) => {
    const value = spec.kind === 'bool' ? '' : ` ${spec.kind === 'list' ? 'strings' : spec.kind}`;
    const def = spec.default !== undefined && spec.kind !== 'bool' ? ` (default ${spec.default})` : '';
    return { head: `      --${name}${value}`, text: `${spec.usage}${def}` };
  });
  // As pflag lays out its usage: one column for every description, past the longest flag.
  const column = Math.max(...rows.map((row) => row.head.length)) + 3;
  for (const row of rows) lines.push(row.head.padEnd(column) + row.text);
  return lines.join('\n') + '\n';
}
