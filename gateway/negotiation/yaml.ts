// The YAML codec (`application/yaml`). Bodies are read with the YAML 1.2 core schema plus merge keys: no custom
// tags, and timestamps stay strings as they do once kube turns YAML into JSON. kube-apiserver does not stream
// watches in YAML, so streamMediaType is '' and negotiation answers 406 for a watch that accepts only YAML.
import yaml from 'js-yaml';
import { errors } from '../../api/meta/errors.js';
import { decodeJsonText, isNestingTooDeep, MAX_NESTING_DEPTH } from './json.js';
import type { DecodeOptions, DecodeResult, Serializer } from './serializer.js';
import { encodeYamlList } from './yaml-list.js';

const MERGE_TAG = 'tag:yaml.org,2002:merge';
/** The `<<` merge key as js-yaml's default schema defines it; the loader recognises it by its tag. */
const MERGE = new yaml.Type(MERGE_TAG, { kind: 'scalar', resolve: (data: unknown) => data === '<<' || data === null });
const SCHEMA = yaml.CORE_SCHEMA.extend({ implicit: [MERGE] });
/** Aliases may repeat a subtree many times; a document that expands past this many nodes is refused. */
const MAX_EXPANDED_NODES = 1_000_000;

interface ComposedNode {
  result: unknown;
  tag: string | null;
  /** Duplicate keys inside this node, as path segments relative to it. */
  duplicates: Array<Array<string | number>>;
}

/**
 * Follows js-yaml's node events to find keys repeated within one mapping. Every composed node opens and closes;
 * a mapping's children arrive as key, value, key, value. js-yaml sometimes wraps a node in a second event pair
 * with the same result (a block-mapping attempt that found no ':'); such a wrapper passes its child through.
 */
function duplicateTracker() {
  const stack: ComposedNode[][] = [];
  let root: ComposedNode | undefined;
  const listener = (event: yaml.EventType, state: yaml.State) => {
    if (event === 'open') {
      stack.push([]);
      return;
    }
    const children = stack.pop() ?? [];
    // The loader's state carries the node's tag too; the type definitions leave it out.
    const tag = (state as yaml.State & { tag?: string | null }).tag ?? null;
    const node: ComposedNode = { result: state.result, tag, duplicates: [] };
    if (children.length === 1 && children[0].result === state.result) {
      node.duplicates = children[0].duplicates;
    } else if (state.kind === 'mapping') {
      const seen = new Set<string>();
      for (let i = 0; i + 1 < children.length; i += 2) {
        const [key, value] = [children[i], children[i + 1]];
        if (key.tag === MERGE_TAG) continue;
        const name = String(key.result);
        if (seen.has(name)) node.duplicates.push([name]);
        seen.add(name);
        for (const d of value.duplicates) node.duplicates.push([name, ...d]);
      }
    } else if (state.kind === 'sequence') {
      children.forEach((child, i) => child.duplicates.forEach((d) => node.duplicates.push([i, ...d])));
    }
    const parent = stack[stack.length - 1];
    if (parent) parent.push(node);
    else root = node;
  };
  const paths = () =>
    (root?.duplicates ?? []).map((segments) =>
      segments.reduce<string>((path, s) => (typeof s === 'number' ? `${path}[${s}]` : path ? `${path}.${s}` : s), ''),
    );
  return { listener, paths };
}

/**
 * Refuses a document that aliases make larger or deeper than any body could be written, or that an alias makes
 * contain itself (`metadata: &m {x: *m}`). The walk keeps its own stack: such documents are what would overflow the
 * call stack. `path` holds the containers from the root down to the one being walked, for the cycle check.
 */
function assertBounded(value: unknown): void {
  let count = 0;
  const path: object[] = [];
  const onPath = new Set<object>();
  const pending: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 0 }];
  while (pending.length > 0) {
    const { node, depth } = pending.pop()!;
    if (++count > MAX_EXPANDED_NODES)
      throw errors.badRequest('error decoding YAML body: the document expands to too many nodes through aliases');
    if (typeof node !== 'object' || node === null) continue;
    while (path.length > depth) onPath.delete(path.pop()!);
    if (onPath.has(node))
      throw errors.badRequest('error decoding YAML body: an alias refers to a node that contains it');
    if (depth >= MAX_NESTING_DEPTH) throw tooDeep();
    path.push(node);
    onPath.add(node);
    for (const child of Array.isArray(node) ? node : Object.values(node))
      pending.push({ node: child, depth: depth + 1 });
  }
}

function tooDeep(): Error {
  return errors.badRequest(`error decoding YAML body: exceeded max depth of ${MAX_NESTING_DEPTH}`);
}

function yamlError(e: unknown): Error {
  // js-yaml reads nested collections recursively: past some depth (well below upstream's limit) the stack runs out.
  if (e instanceof RangeError) return errors.badRequest('error decoding YAML body: the document nests too deeply');
  if (e instanceof yaml.YAMLException) {
    const at = e.mark ? ` at line ${e.mark.line + 1} column ${e.mark.column + 1}` : '';
    return errors.badRequest(`error decoding YAML body: ${e.reason}${at}`);
  }
  return e as Error;
}

/** Parses one YAML document; throws StatusError 400 for malformed YAML or several documents. */
export function decodeYamlText(text: string, opts: DecodeOptions = {}): DecodeResult {
  // JSON is YAML too, and clients often send it under a YAML type: the JSON codec is faster and exact.
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return decodeJsonText(text, opts);
    } catch (e) {
      // Not strict JSON (flow YAML, comments, unquoted keys): the YAML reader decides, unless it was JSON too deep.
      if (isNestingTooDeep(e)) throw e;
    }
  }
  const tracker = opts.reportDuplicates === false ? undefined : duplicateTracker();
  let documents: unknown[];
  try {
    documents = yaml.loadAll(text, undefined, { schema: SCHEMA, json: true, listener: tracker?.listener });
  } catch (e) {
    throw yamlError(e);
  }
  if (documents.length === 0) throw errors.badRequest('error decoding YAML body: the body is empty');
  if (documents.length > 1)
    throw errors.badRequest(`error decoding YAML body: expected one document, found ${documents.length}`);
  // Without aliases a document has at most one node per character: only longer text can be too deep.
  if (text.includes('*') || text.length > MAX_NESTING_DEPTH) assertBounded(documents[0]);
  return { value: documents[0], duplicateFields: tracker?.paths() ?? [] };
}

export function encodeYaml(value: unknown): string {
  // Plain data only: no anchors, no folding, and strings that look like other types (`"true"`, `"1"`) quoted.
  return yaml.dump(value ?? null, { noRefs: true, lineWidth: -1 });
}

export function createYamlSerializer(): Serializer {
  return {
    mediaType: 'application/yaml',
    aliases: [],
    encode: (value) => Buffer.from(encodeYaml(value)),
    encodeList: (list) => encodeYamlList(list, encodeYaml),
    decode: (body, opts) => decodeYamlText(body.toString('utf8'), opts),
    streamMediaType: '',
    encodeWatchEvent: () => {
      throw errors.notAcceptable(['application/json']);
    },
  } satisfies Serializer;
}
