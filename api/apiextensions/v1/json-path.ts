// The simple JSON paths a definition names fields with: `.spec.replicas` for scale, printer columns and selectable
// fields, `.list[0]` and `['dotted.key']` for a rule's fieldPath. Parsed here into segments so that each use can
// check them against the schema.
import { additionalOf, itemsOf, propertiesOf, type JSONSchemaProps } from './schema-props.js';

export type PathSegment = { field: string } | { index: number };

/** upstream's validateSimpleJSONPath: the problem with `path`, or undefined. */
export function simpleJsonPathProblem(path: string): string | undefined {
  if (path === '') return 'must not be empty';
  if (!path.startsWith('.')) return 'must be a simple json path starting with .';
  return undefined;
}

const NAME = /^[^.[\]'"]+/;

/** `.a.b['c.d'][0]` → segments; undefined when the path does not parse. */
export function parseFieldPath(path: string): PathSegment[] | undefined {
  const out: PathSegment[] = [];
  let rest = path;
  while (rest !== '') {
    if (rest.startsWith('.')) {
      const m = NAME.exec(rest.slice(1));
      if (!m) return undefined;
      out.push({ field: m[0] });
      rest = rest.slice(1 + m[0].length);
    } else if (rest.startsWith("['")) {
      const end = rest.indexOf("']", 2);
      if (end < 0) return undefined;
      out.push({ field: rest.slice(2, end) });
      rest = rest.slice(end + 2);
    } else if (rest.startsWith('[')) {
      const m = /^\[(\d+)\]/.exec(rest);
      if (!m) return undefined;
      out.push({ index: Number(m[1]) });
      rest = rest.slice(m[0].length);
    } else return undefined;
  }
  return out;
}

/** The schema a path leads to inside `schema`, or undefined when a segment names nothing the schema describes. */
export function resolvePath(schema: JSONSchemaProps, segments: PathSegment[]): JSONSchemaProps | undefined {
  let at: JSONSchemaProps | undefined = schema;
  for (const seg of segments) {
    if (!at) return undefined;
    if ('index' in seg) at = at.type === 'array' ? itemsOf(at) : undefined;
    else at = new Map(propertiesOf(at)).get(seg.field) ?? additionalOf(at);
  }
  return at;
}

/** The field names of a path made of fields only (scale paths, selectable fields: validated so when written). */
export function fieldNamesOf(path: string): string[] {
  return (parseFieldPath(path) ?? []).flatMap((seg) => ('field' in seg ? [seg.field] : []));
}

/** The value the field names lead to inside `value`, or undefined. */
export function valueAtFields(value: unknown, fields: readonly string[]): unknown {
  let at = value;
  for (const field of fields)
    at =
      at !== null && typeof at === 'object' && !Array.isArray(at) ? (at as Record<string, unknown>)[field] : undefined;
  return at;
}
