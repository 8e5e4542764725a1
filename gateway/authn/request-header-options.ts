// The --requestheader-* flags, checked as kube-apiserver checks them. The proxy is configured only when
// --requestheader-client-ca-file is given (the header flags alone do nothing, as upstream); the CA bundle must hold
// certificates, and header names must not be empty or blank. Like kube-apiserver the header flags have no default:
// a proxy set-up names its headers (usually X-Remote-User, X-Remote-Group, X-Remote-Extra-).
import { readClientCaBundle } from './client-cert.js';
import type { RequestHeaderConfig } from './request-header.js';

export interface RequestHeaderOptions extends RequestHeaderConfig {
  clientCaFile: string;
}

export const REQUEST_HEADER_FLAG_NAMES = {
  clientCaFile: 'requestheader-client-ca-file',
  allowedNames: 'requestheader-allowed-names',
  usernameHeaders: 'requestheader-username-headers',
  groupHeaders: 'requestheader-group-headers',
  extraHeaderPrefixes: 'requestheader-extra-headers-prefix',
} as const;

type Invalid = (flag: string, value: string, why: string) => Error;

/** A string-slice flag: every occurrence, each comma-separated; `--flag=` alone is the empty list. */
function listOf(raw: string[] | undefined): string[] {
  return (raw ?? []).flatMap((v) => (v === '' ? [] : v.split(',')));
}

function headerList(flag: string, raw: string[] | undefined, invalid: Invalid): string[] {
  const values = listOf(raw);
  for (const v of values) {
    if (v.trim() === '') throw invalid(flag, (raw ?? []).join(','), 'empty header name');
  }
  return values.map((v) => v.trim());
}

/**
 * `values(flag)` gives the raw occurrences of a flag (undefined when absent); `resolve` makes a path absolute.
 * Returns undefined when no request-header CA is configured.
 */
export function parseRequestHeaderOptions(
  values: (flag: string) => string[] | undefined,
  resolve: (file: string) => string,
  invalid: Invalid,
): RequestHeaderOptions | undefined {
  const names = REQUEST_HEADER_FLAG_NAMES;
  const usernameHeaders = headerList(names.usernameHeaders, values(names.usernameHeaders), invalid);
  const groupHeaders = headerList(names.groupHeaders, values(names.groupHeaders), invalid);
  const extraHeaderPrefixes = headerList(names.extraHeaderPrefixes, values(names.extraHeaderPrefixes), invalid);
  const allowedNames = listOf(values(names.allowedNames));
  if (allowedNames.some((n) => n.trim() === '')) {
    throw invalid(names.allowedNames, (values(names.allowedNames) ?? []).join(','), 'empty common name');
  }
  const rawCa = values(names.clientCaFile)?.at(-1);
  if (rawCa === undefined) return undefined;
  if (rawCa === '') throw invalid(names.clientCaFile, rawCa, 'must not be empty');
  const clientCaFile = resolve(rawCa);
  try {
    readClientCaBundle(clientCaFile);
  } catch (e) {
    throw invalid(names.clientCaFile, clientCaFile, (e as Error).message);
  }
  return { clientCaFile, usernameHeaders, groupHeaders, extraHeaderPrefixes, allowedNames };
}
