// Option parsing for --controllers: the selection against the known controllers, refused with an OptionsError that
// names the flag, the value and the offending controller.
import { invalid } from '../server/flag-primitives.js';
import { KNOWN_CONTROLLERS } from './known-controllers.js';
import { ControllerSelectionError, parseControllerSelection, type ControllerSelection } from './selection.js';

export type { ControllerSelection };

export function parseControllersFlag(values: readonly string[]): ControllerSelection {
  try {
    return parseControllerSelection(values, KNOWN_CONTROLLERS);
  } catch (e) {
    if (e instanceof ControllerSelectionError) throw invalid('controllers', values.join(','), e.message);
    throw e;
  }
}
