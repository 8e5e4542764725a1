// The values a custom kind's rules see, typed as their schema declares them (upstream's UnstructuredToVal): a string
// of format date or date-time is a timestamp, duration a duration, byte the bytes it encodes, wherever it sits in
// the value a rule reads, so that `self.start < self.end` compares times. The stored JSON is never changed: each
// evaluation reads a converted copy of only the objects and lists that hold such strings.
import { isObject } from '../../api/meta/types.js';
import {
  additionalOf,
  itemsOf,
  MAX_SCHEMA_DEPTH,
  propertiesOf,
  type JSONSchemaProps,
} from '../../api/apiextensions/v1/schema-props.js';
import { CEL_FORMAT_TYPES, celValueOfFormat } from '../../policies/cel/index.js';

export type ValueConversion = (value: unknown) => unknown;

function objectConversion(
  fields: [string, ValueConversion][],
  additional: ValueConversion | undefined,
): ValueConversion {
  const declared = new Set(fields.map(([name]) => name));
  return (value) => {
    if (!isObject(value)) return value;
    const out: Record<string, unknown> = { ...value };
    for (const [name, convert] of fields) if (Object.hasOwn(value, name)) out[name] = convert(value[name]);
    if (additional) for (const key of Object.keys(value)) if (!declared.has(key)) out[key] = additional(value[key]);
    return out;
  };
}

/** How to type the values under a schema node, or undefined when nothing under it is a formatted string. */
export function valueConversionOf(s: JSONSchemaProps | undefined, depth = 0): ValueConversion | undefined {
  if (!s || depth > MAX_SCHEMA_DEPTH) return undefined;
  if (s.type === 'string') {
    const format = s.format;
    if (format === undefined || !Object.hasOwn(CEL_FORMAT_TYPES, format)) return undefined;
    return (value) => (typeof value === 'string' ? celValueOfFormat(format, value) : value);
  }
  const items = valueConversionOf(itemsOf(s), depth + 1);
  if (items) return (value) => (Array.isArray(value) ? value.map(items) : value);
  const fields = propertiesOf(s).flatMap(([name, child]): [string, ValueConversion][] => {
    const convert = valueConversionOf(child, depth + 1);
    return convert ? [[name, convert]] : [];
  });
  const additional = valueConversionOf(additionalOf(s), depth + 1);
  return fields.length > 0 || additional ? objectConversion(fields, additional) : undefined;
}
