// --controllers, as kube-controller-manager reads it: a list where `*` turns on every controller that is on by
// default, `name` turns one on, `-name` turns one off. The first entry naming a controller decides; without one,
// `*` decides (default-on controllers only). A controller answers to its canonical name and to its short aliases
// (`tokencleaner` is `token-cleaner-controller`). Unknown names are refused at start-up.

export interface ControllerInfo {
  /** Canonical name, upstream style: `token-cleaner-controller`. */
  name: string;
  /** Older names the flag also accepts: `tokencleaner`. */
  aliases?: string[];
  /** Whether `*` includes it. */
  enabledByDefault: boolean;
}

export interface ControllerSelection {
  /** The list as given (after alias resolution), for diagnostics. */
  readonly entries: readonly string[];
  /** Whether the controller of this canonical name runs. */
  enabled(name: string): boolean;
}

export class ControllerSelectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ControllerSelectionError';
  }
}

export const DEFAULT_CONTROLLERS = '*';

/**
 * Parses the raw flag values (repeated flags append, as pflag's string slices do; each is comma-separated). Throws
 * ControllerSelectionError naming an unknown controller or an empty entry.
 */
export function parseControllerSelection(
  values: readonly string[],
  known: readonly ControllerInfo[],
): ControllerSelection {
  const canonical = new Map<string, string>();
  for (const info of known) {
    canonical.set(info.name, info.name);
    for (const alias of info.aliases ?? []) canonical.set(alias, info.name);
  }
  const raw = values.length === 0 ? [DEFAULT_CONTROLLERS] : values.flatMap((v) => v.split(','));
  const entries = raw.map((entry) => {
    const item = entry.trim();
    if (item === '*') return item;
    const negated = item.startsWith('-');
    const bare = negated ? item.slice(1) : item;
    if (bare === '') throw new ControllerSelectionError('empty controller name');
    const name = canonical.get(bare);
    if (name === undefined) throw new ControllerSelectionError(`"${bare}" is not in the list of known controllers`);
    return negated ? `-${name}` : name;
  });
  const byDefault = new Set(known.filter((k) => k.enabledByDefault).map((k) => k.name));
  return {
    entries,
    enabled(name) {
      let star = false;
      for (const entry of entries) {
        if (entry === name) return true;
        if (entry === `-${name}`) return false;
        if (entry === '*') star = true;
      }
      return star && byDefault.has(name);
    },
  };
}
