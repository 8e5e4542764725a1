// --token-auth-file: kube-apiserver's static token CSV. Each record is `token,user,uid[,"group1,group2"]`, read as
// RFC 4180 CSV (quoted fields may hold commas). Upstream takes groups from the fourth column only, split on commas;
// the spec also calls further columns group names, so columns five onwards are added as one group each.
// Upstream behaviour kept: blank lines are skipped, no comment syntax, an empty token is skipped with a warning,
// a duplicate token warns and the last record wins. Refused at start-up (naming the line): fewer than three
// columns, an empty user name, broken quoting.
import { hash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { UserInfo } from '../../api/meta/user.js';
import type { TokenAuthenticator } from './bearer-token.js';

export interface StaticToken {
  token: string;
  user: UserInfo;
}

export class TokenFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenFileError';
  }
}

interface CsvRecord {
  line: number;
  fields: string[];
}

/** Go encoding/csv semantics without LazyQuotes: a quote inside an unquoted field, or an unclosed quote, is an error. */
export function parseCsv(text: string, source: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let line = 1;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const startLine = line;
    if (text[i] === '\n' || (text[i] === '\r' && text[i + 1] === '\n')) {
      i += text[i] === '\r' ? 2 : 1;
      line++;
      continue;
    }
    const fields: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= n) throw new TokenFileError(`${source}: line ${startLine}: extraneous or missing " in quoted-field`);
          const c = text[i];
          if (c === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
        if (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
          throw new TokenFileError(`${source}: line ${line}: extraneous or missing " in quoted-field`);
        }
      } else {
        while (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
          if (text[i] === '"') throw new TokenFileError(`${source}: line ${line}: bare " in non-quoted-field`);
          field += text[i];
          i++;
        }
      }
      fields.push(field);
      if (i < n && text[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    if (i < n) {
      i += text[i] === '\r' ? 2 : 1;
      line++;
    }
    records.push({ line: startLine, fields });
  }
  return records;
}

export interface ParsedTokenFile {
  tokens: StaticToken[];
  warnings: string[];
}

export function parseTokenFile(text: string, source = 'token file'): ParsedTokenFile {
  const byToken = new Map<string, StaticToken>();
  const warnings: string[] = [];
  for (const { line, fields } of parseCsv(text, source)) {
    if (fields.length < 3) {
      throw new TokenFileError(
        `${source}: line ${line}: must have at least 3 columns (token, user name, user uid), found ${fields.length}`,
      );
    }
    const [token, name, uid, ...groupColumns] = fields;
    if (token === '') {
      warnings.push(`${source}: line ${line}: empty token, record skipped`);
      continue;
    }
    if (name === '') throw new TokenFileError(`${source}: line ${line}: empty user name`);
    const groups = [...(groupColumns[0] ?? '').split(','), ...groupColumns.slice(1)]
      .map((g) => g.trim())
      .filter((g) => g !== '');
    if (byToken.has(token)) warnings.push(`${source}: line ${line}: duplicate token, the later record wins`);
    byToken.set(token, { token, user: { name, uid, groups: [...new Set(groups)] } });
  }
  return { tokens: [...byToken.values()], warnings };
}

export async function loadTokenFile(file: string): Promise<ParsedTokenFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new TokenFileError(`cannot read token file ${file}: ${(e as Error).message}`);
  }
  return parseTokenFile(text, file);
}

/** SHA-256 in hex, in one call (no Hash object per request). */
function digest(value: string): string {
  return hash('sha256', value, 'hex');
}

/**
 * Looks the presented token up by its SHA-256 digest, in one map lookup whatever the number of tokens. Comparing
 * digests rather than tokens is what keeps this safe from timing attacks: how long the lookup takes can only tell
 * how much of a digest matched, and an attacker cannot steer a digest towards a known one.
 */
export function createStaticTokenAuthenticator(name: string, tokens: StaticToken[]): TokenAuthenticator {
  const byDigest = new Map<string, UserInfo>();
  for (const t of tokens) {
    const key = digest(t.token);
    // The first record of a token decides, as the linear scan this replaced did.
    if (!byDigest.has(key)) byDigest.set(key, t.user);
  }
  return {
    name,
    async authenticateToken(token) {
      const found = byDigest.get(digest(token));
      return found ? { user: { ...found, groups: [...found.groups] } } : null;
    },
  };
}
