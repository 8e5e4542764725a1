// `gatehouse credential`: a client-side credential plugin for kubectl's `exec` user configuration. kubectl runs it,
// reads one ExecCredential object from stdout and uses the token or client certificate in it until
// expirationTimestamp passes (or a 401 arrives). The apiVersion answered is the one kubectl announces in
// KUBERNETES_EXEC_INFO (PLATFORM_EXEC_INFO, the spec's name, is read too), because kubectl refuses any other; the
// stock kubectl speaks client.authentication.k8s.io, the spec's spelling client.authentication.platform.io is
// accepted as well. Secrets only ever go to stdout: error messages name files and flags, never their contents.
import { readFile } from 'node:fs/promises';
import { parseDuration } from '../server/flag-primitives.js';

export const EXEC_API_VERSIONS = [
  'client.authentication.k8s.io/v1',
  'client.authentication.k8s.io/v1beta1',
  'client.authentication.platform.io/v1',
  'client.authentication.platform.io/v1beta1',
] as const;
export const DEFAULT_EXEC_API_VERSION = 'client.authentication.k8s.io/v1';

export const CREDENTIAL_USAGE = `Usage:
  gatehouse credential token (--token-file FILE | --token TOKEN) [--expiration DURATION] [--api-version VERSION]
  gatehouse credential client-cert --cert FILE --key FILE [--expiration DURATION] [--api-version VERSION]

Prints an ExecCredential for kubectl's exec credential plugin configuration (users[].user.exec).

Flags:
  --token-file FILE       File holding the bearer token (surrounding whitespace ignored); preferred over --token,
                          which is visible in process listings.
  --token TOKEN           The bearer token itself.
  --cert FILE             PEM client certificate, intermediates may follow the leaf.
  --key FILE              PEM private key of the certificate.
  --expiration DURATION   Sets status.expirationTimestamp this far ahead (e.g. 1h, 30m); kubectl caches the
                          credential until then. Without it kubectl keeps it until a 401 or its exit.
  --api-version VERSION   ExecCredential apiVersion to answer; default: the one in KUBERNETES_EXEC_INFO, else
                          ${DEFAULT_EXEC_API_VERSION}. One of ${EXEC_API_VERSIONS.join(', ')}.
`;

export interface CredentialIO {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  now?: () => Date;
  readFile?: (file: string) => Promise<string>;
}

export class CredentialError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialError';
  }
}

interface ExecCredentialStatus {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  expirationTimestamp?: string;
}

const FLAGS: Record<string, readonly string[]> = {
  token: ['token', 'token-file', 'expiration', 'api-version'],
  'client-cert': ['cert', 'key', 'expiration', 'api-version'],
};

function parseFlags(mode: string, args: string[]): Map<string, string> {
  const allowed = FLAGS[mode];
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) throw new CredentialError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    if (!allowed.includes(name)) throw new CredentialError(`unknown flag --${name} for "credential ${mode}"`);
    let value: string;
    if (eq >= 0) {
      value = arg.slice(eq + 1);
    } else {
      if (i + 1 >= args.length) throw new CredentialError(`flag needs an argument: --${name}`);
      value = args[++i];
    }
    if (value === '') throw new CredentialError(`--${name} must not be empty`);
    flags.set(name, value);
  }
  return flags;
}

/** The apiVersion to answer: --api-version, else what kubectl announced, else v1. */
export function execApiVersion(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  let version = flag;
  if (version === undefined) {
    const info = env.KUBERNETES_EXEC_INFO ?? env.PLATFORM_EXEC_INFO;
    if (info) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(info);
      } catch {
        throw new CredentialError('KUBERNETES_EXEC_INFO is not valid JSON');
      }
      const announced = (parsed as { apiVersion?: unknown } | null)?.apiVersion;
      if (typeof announced === 'string' && announced !== '') version = announced;
    }
  }
  version ??= DEFAULT_EXEC_API_VERSION;
  if (!(EXEC_API_VERSIONS as readonly string[]).includes(version)) {
    throw new CredentialError(
      `unsupported ExecCredential apiVersion "${version}" (supported: ${EXEC_API_VERSIONS.join(', ')})`,
    );
  }
  return version;
}

/** RFC 3339 in UTC without fractions, as Go's metav1.Time marshals. */
function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

async function readSecretFile(flag: string, file: string, read: (f: string) => Promise<string>): Promise<string> {
  try {
    return await read(file);
  } catch (e) {
    throw new CredentialError(`--${flag}: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

async function tokenStatus(
  flags: Map<string, string>,
  read: (f: string) => Promise<string>,
): Promise<ExecCredentialStatus> {
  const inline = flags.get('token');
  const file = flags.get('token-file');
  if ((inline === undefined) === (file === undefined))
    throw new CredentialError('exactly one of --token and --token-file is required');
  const token = (inline ?? (await readSecretFile('token-file', file!, read))).trim();
  if (token === '') throw new CredentialError(`--token-file: ${file} holds no token`);
  // A bearer token must fit one header value.
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\s\x00-\x1f\x7f]/.test(token))
    throw new CredentialError(
      `the token ${file ? `in ${file} ` : ''}must not contain whitespace or control characters`,
    );
  return { token };
}

async function clientCertStatus(
  flags: Map<string, string>,
  read: (f: string) => Promise<string>,
): Promise<ExecCredentialStatus> {
  const certFile = flags.get('cert');
  const keyFile = flags.get('key');
  if (certFile === undefined || keyFile === undefined) throw new CredentialError('--cert and --key are both required');
  const cert = await readSecretFile('cert', certFile, read);
  const key = await readSecretFile('key', keyFile, read);
  if (!/-----BEGIN CERTIFICATE-----/.test(cert))
    throw new CredentialError(`--cert: ${certFile} holds no PEM certificate`);
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key))
    throw new CredentialError(`--key: ${keyFile} holds no PEM private key`);
  return { clientCertificateData: cert, clientKeyData: key };
}

/** Builds the ExecCredential object for `argv` (the words after `credential`). */
export async function execCredential(argv: string[], io: CredentialIO): Promise<Record<string, unknown>> {
  const [mode, ...rest] = argv;
  if (mode === undefined || !(mode in FLAGS)) {
    throw new CredentialError(
      mode === undefined
        ? 'a credential type is required: token or client-cert'
        : `unknown credential type "${mode}" (token or client-cert)`,
    );
  }
  const flags = parseFlags(mode, rest);
  const apiVersion = execApiVersion(flags.get('api-version'), io.env);
  const read = io.readFile ?? ((f: string) => readFile(f, 'utf8'));
  const status = mode === 'token' ? await tokenStatus(flags, read) : await clientCertStatus(flags, read);
  const expiration = flags.get('expiration');
  if (expiration !== undefined) {
    let ms: number;
    try {
      ms = parseDuration(expiration);
    } catch (e) {
      throw new CredentialError(`--expiration: ${(e as Error).message}`);
    }
    if (ms <= 0) throw new CredentialError(`--expiration: must be greater than 0, got "${expiration}"`);
    status.expirationTimestamp = rfc3339(new Date((io.now?.() ?? new Date()).getTime() + ms));
  }
  return { apiVersion, kind: 'ExecCredential', status };
}

/** The subcommand: prints the ExecCredential and returns 0, or prints `error: ...` (and usage hints) and returns 1. */
export async function runCredential(argv: string[], io: CredentialIO): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(CREDENTIAL_USAGE);
    return 0;
  }
  try {
    const credential = await execCredential(argv, io);
    io.stdout(`${JSON.stringify(credential)}\n`);
    return 0;
  } catch (e) {
    if (!(e instanceof CredentialError)) throw e;
    io.stderr(`error: ${e.message}\nRun 'gatehouse credential --help' for usage.\n`);
    return 1;
  }
}
