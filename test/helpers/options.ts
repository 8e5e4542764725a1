// Option parsing as the tests probe it: the OptionsError a command line must be refused with.
import { expect } from 'chai';
import { parseOptions, OptionsError } from '../../gateway/server/options.js';

/** The OptionsError parseOptions throws for `argv`; the test fails when the command line is accepted. */
export function optionsError(argv: string[], cwd = '/srv/gh'): OptionsError {
  try {
    parseOptions(argv, cwd);
  } catch (e) {
    expect(e).to.be.instanceOf(OptionsError);
    return e as OptionsError;
  }
  throw new Error(`expected ${argv.join(' ')} to be refused`);
}
