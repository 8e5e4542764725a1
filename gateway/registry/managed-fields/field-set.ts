// Sets of field paths, as server-side apply records ownership. A path is a list of path elements in the notation of
// `metadata.managedFields[].fieldsV1`: `f:<field>` (a field of an object), `k:<json>` (an element of a keyed list,
// by its key fields), `v:<json>` (an element of a set list, by value), `i:<n>` (an element by position).
// The tree keeps, per level, which elements are themselves members and which have members below them; FieldsV1 is
// that tree as JSON, with `.` marking a member that also has children.

export type PathElement = string;
export type FieldPath = readonly PathElement[];

const KIND_ORDER: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function compareElements(a: PathElement, b: PathElement): number {
  const ka = KIND_ORDER[a[0]] ?? 4;
  const kb = KIND_ORDER[b[0]] ?? 4;
  if (ka !== kb) return ka - kb;
  return a < b ? -1 : a > b ? 1 : 0;
}

export class FieldsV1Error extends Error {}

export class FieldSet {
  private readonly members = new Set<PathElement>();
  private readonly children = new Map<PathElement, FieldSet>();

  static fromPaths(paths: Iterable<FieldPath>): FieldSet {
    const set = new FieldSet();
    for (const p of paths) set.insert(p);
    return set;
  }

  /** Parses a FieldsV1 object; throws FieldsV1Error naming the problem for anything else. */
  static fromFieldsV1(value: unknown): FieldSet {
    const set = new FieldSet();
    set.readFieldsV1(value, '');
    return set;
  }

  private readFieldsV1(value: unknown, at: string): void {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new FieldsV1Error(`expected an object${at ? ` at ${at}` : ''}`);
    }
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      if (key === '.') continue;
      if (!/^[fkvi]:/.test(key)) throw new FieldsV1Error(`unknown path element "${key}"${at ? ` at ${at}` : ''}`);
      if (child === null || typeof child !== 'object' || Array.isArray(child)) {
        throw new FieldsV1Error(`expected an object at ${at}${key}`);
      }
      const pe = canonicalElement(key, at);
      const entries = Object.keys(child);
      if (entries.length === 0 || entries.includes('.')) this.members.add(pe);
      if (entries.some((k) => k !== '.')) {
        const sub = this.childFor(pe);
        sub.readFieldsV1(child, `${at}${key}/`);
      }
    }
  }

  private childFor(pe: PathElement): FieldSet {
    let sub = this.children.get(pe);
    if (!sub) {
      sub = new FieldSet();
      this.children.set(pe, sub);
    }
    return sub;
  }

  insert(path: FieldPath): void {
    if (path.length === 0) return;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.childFor(path[i]);
    node.members.add(path[path.length - 1]);
  }

  has(path: FieldPath): boolean {
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && node; i++) node = node.children.get(path[i]);
    return !!node && path.length > 0 && node.members.has(path[path.length - 1]);
  }

  /** True when the path or anything below it is a member. */
  hasPrefix(path: FieldPath): boolean {
    if (path.length === 0) return !this.isEmpty();
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1; i++) {
      node = node.children.get(path[i]);
      if (!node) return false;
    }
    const last = path[path.length - 1];
    if (node.members.has(last)) return true;
    const sub = node.children.get(last);
    return !!sub && !sub.isEmpty();
  }

  isEmpty(): boolean {
    if (this.members.size > 0) return false;
    for (const sub of this.children.values()) if (!sub.isEmpty()) return false;
    return true;
  }

  /** Every member path, parents before their children. */
  *paths(prefix: PathElement[] = []): Generator<FieldPath> {
    const keys = [...new Set([...this.members, ...this.children.keys()])].sort(compareElements);
    for (const pe of keys) {
      const path = [...prefix, pe];
      if (this.members.has(pe)) yield path;
      const sub = this.children.get(pe);
      if (sub) yield* sub.paths(path);
    }
  }

  // Set operations work on the trees directly: they run on every write, and enumerating paths allocates per path.
  // A set is never changed once built (insert is for building), so results share unchanged subtrees with their
  // operands, and an operation that changes nothing returns its operand: a create's ownership goes through five
  // of them, mostly against empty sets.

  clone(): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const [pe, sub] of this.children) out.children.set(pe, sub.clone());
    return out;
  }

  union(other: FieldSet): FieldSet {
    if (other.isEmpty()) return this;
    if (this.isEmpty()) return other;
    const out = this.clone();
    out.addAll(other);
    return out;
  }

  private addAll(other: FieldSet): void {
    for (const m of other.members) this.members.add(m);
    for (const [pe, sub] of other.children) this.childFor(pe).addAll(sub);
  }

  difference(other: FieldSet): FieldSet {
    if (other.isEmpty()) return this;
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [pe, sub] of this.children) {
      const theirs = other.children.get(pe);
      const rest = theirs ? sub.difference(theirs) : sub;
      if (!rest.isEmpty()) out.children.set(pe, rest);
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (other.members.has(m)) out.members.add(m);
    for (const [pe, sub] of this.children) {
      const theirs = other.children.get(pe);
      if (!theirs) continue;
      const both = sub.intersection(theirs);
      if (!both.isEmpty()) out.children.set(pe, both);
    }
    return out;
  }

  /** Drops every member at or below any of the given paths. */
  withoutPrefixes(prefixes: readonly FieldPath[]): FieldSet {
    if (!prefixes.some((prefix) => this.hasPrefix(prefix))) return this;
    const out = this.clone();
    for (const prefix of prefixes) {
      const parent = out.nodeAt(prefix.slice(0, -1));
      if (!parent || prefix.length === 0) continue;
      parent.members.delete(prefix[prefix.length - 1]);
      parent.children.delete(prefix[prefix.length - 1]);
    }
    return out;
  }

  /** Keeps only members at or below one of the given paths. */
  onlyPrefixes(prefixes: readonly FieldPath[]): FieldSet {
    const out = new FieldSet();
    for (const prefix of prefixes) {
      const parent = this.nodeAt(prefix.slice(0, -1));
      if (!parent || prefix.length === 0) continue;
      const last = prefix[prefix.length - 1];
      if (parent.members.has(last)) out.insert(prefix);
      const sub = parent.children.get(last);
      if (sub) {
        let node: FieldSet = out;
        for (const pe of prefix) node = node.childFor(pe);
        node.addAll(sub);
      }
    }
    return out;
  }

  private nodeAt(path: FieldPath): FieldSet | undefined {
    let node: FieldSet | undefined = this;
    for (const pe of path) {
      node = node.children.get(pe);
      if (!node) return undefined;
    }
    return node;
  }

  equals(other: FieldSet): boolean {
    if (this.members.size !== other.members.size) return false;
    for (const m of this.members) if (!other.members.has(m)) return false;
    const mine = [...this.children].filter(([, sub]) => !sub.isEmpty());
    const theirs = [...other.children].filter(([, sub]) => !sub.isEmpty());
    if (mine.length !== theirs.length) return false;
    return mine.every(([pe, sub]) => {
      const o = other.children.get(pe);
      return !!o && sub.equals(o);
    });
  }

  toFieldsV1(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const keys = [...new Set([...this.members, ...this.children.keys()])].sort(compareElements);
    for (const pe of keys) {
      const sub = this.children.get(pe);
      const below = sub && !sub.isEmpty() ? sub.toFieldsV1() : undefined;
      if (!below) {
        if (this.members.has(pe)) out[pe] = {};
        continue;
      }
      out[pe] = this.members.has(pe) ? { '.': {}, ...below } : below;
    }
    return out;
  }
}

/**
 * A key, value or index element as this module writes it. Another writer (a client patching managedFields) may space
 * or order the JSON differently; compared as strings, such an element would match nothing the server computes, and
 * the ownership it records would neither conflict nor ever be released.
 */
function canonicalElement(key: string, at: string): PathElement {
  if (key[0] === 'f') return key;
  const invalid = () => new FieldsV1Error(`invalid path element "${key}"${at ? ` at ${at}` : ''}`);
  if (key[0] === 'i') {
    if (!/^-?\d+$/.test(key.slice(2))) throw invalid();
    return indexElement(Number(key.slice(2)));
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(key.slice(2));
  } catch {
    throw invalid();
  }
  if (key[0] === 'v') return valueElement(parsed);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid();
  return keyElement(parsed as Record<string, unknown>);
}

export function startsWith(path: FieldPath, prefix: FieldPath): boolean {
  return prefix.length <= path.length && prefix.every((pe, i) => path[i] === pe);
}

/** `.spec.containers[name="app"].image`, as kube-apiserver prints paths in apply conflicts. */
export function pathString(path: FieldPath): string {
  return path
    .map((pe) => {
      const body = pe.slice(2);
      switch (pe[0]) {
        case 'f':
          return `.${body}`;
        case 'k': {
          const keys = JSON.parse(body) as Record<string, unknown>;
          return `[${Object.entries(keys)
            .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
            .join(',')}]`;
        }
        case 'v':
          return `[=${body}]`;
        default:
          return `[${body}]`;
      }
    })
    .join('');
}

/** A keyed list element's path element: keys in name order, as upstream serializes them. */
export function keyElement(keys: Record<string, unknown>): PathElement {
  const sorted = Object.keys(keys)
    .sort()
    .map((k) => [k, keys[k]]);
  return `k:${JSON.stringify(Object.fromEntries(sorted))}`;
}

export function fieldElement(name: string): PathElement {
  return `f:${name}`;
}

export function valueElement(value: unknown): PathElement {
  return `v:${JSON.stringify(value)}`;
}

export function indexElement(index: number): PathElement {
  return `i:${index}`;
}
