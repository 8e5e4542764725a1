// One YAML (or JSON) configuration document decoded for a file the operator wrote: a syntax error comes back as the
// place and the reason ("line 5 column 3: bad indentation of a mapping entry"), which every configuration reader
// puts after the name of its file.
import yaml from 'js-yaml';

export class YamlDocumentError extends Error {
  override name = 'YamlDocumentError';
}

export function decodeYamlDocument(text: string): unknown {
  return decodeYamlDocumentWithLines(text).value;
}

/**
 * The document, and the line (1-based) each of its mappings and sequences starts on: a reader that refuses a field
 * can then name the line as well as the path, as an operator editing the file looks for it.
 */
export function decodeYamlDocumentWithLines(text: string): {
  value: unknown;
  lineOf: (node: object) => number | undefined;
} {
  const lines = new WeakMap<object, number>();
  const opened: number[] = [];
  const listener = (event: 'open' | 'close', state: { line: number; result: unknown }): void => {
    if (event === 'open') {
      opened.push(state.line);
      return;
    }
    const line = opened.pop();
    if (line !== undefined && typeof state.result === 'object' && state.result !== null && !lines.has(state.result))
      lines.set(state.result, line + 1);
  };
  try {
    const value = yaml.load(text, { listener });
    return { value, lineOf: (node) => lines.get(node) };
  } catch (e) {
    const { mark, reason, message } = e as {
      mark?: { line: number; column: number };
      reason?: string;
      message: string;
    };
    const where = mark ? `line ${mark.line + 1} column ${mark.column + 1}: ` : '';
    throw new YamlDocumentError(`${where}${reason ?? message.split('\n')[0]}`, { cause: e });
  }
}
