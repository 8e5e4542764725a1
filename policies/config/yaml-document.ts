// One YAML (or JSON) configuration document decoded for a file the operator wrote: a syntax error comes back as the
// place and the reason ("line 5 column 3: bad indentation of a mapping entry"), which every configuration reader
// puts after the name of its file.
import yaml from 'js-yaml';

export class YamlDocumentError extends Error {
  override name = 'YamlDocumentError';
}

export function decodeYamlDocument(text: string): unknown {
  try {
    return yaml.load(text);
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
