// One precondition rule for the registry's DeleteOptions check and every backend (backends/storage-support.ts):
// upstream's pointer fields, so an empty string is a precondition and only an absent or null field is none.
import { expect } from 'chai';
import type { KObject } from '../../api/meta/types.js';
import { checkPreconditions, preconditionFailure } from '../../backends/storage-support.js';
import { isStorageError } from '../../backends/storage.js';

const stored = { metadata: { uid: 'u1', resourceVersion: '7' } } as KObject;

describe('preconditions', () => {
  it('passes matching or absent fields, and takes null for absent', () => {
    expect(preconditionFailure(undefined, stored)).to.equal(undefined);
    expect(preconditionFailure({ uid: 'u1', resourceVersion: '7' }, stored)).to.equal(undefined);
    expect(preconditionFailure({ uid: null, resourceVersion: null } as never, stored)).to.equal(undefined);
  });

  it('fails a mismatch, an empty string included, with upstream wording, the UID first', () => {
    expect(preconditionFailure({ uid: '', resourceVersion: '8' }, stored)).to.deep.equal({
      field: 'uid',
      message: 'Precondition failed: UID in precondition: , UID in object meta: u1',
    });
    expect(preconditionFailure({ resourceVersion: '8' }, stored)?.message).to.equal(
      'Precondition failed: ResourceVersion in precondition: 8, ResourceVersion in object meta: 7',
    );
  });

  it('is a PreconditionUid or Conflict storage error inside the backends', () => {
    const thrown = (pre: object): unknown => {
      try {
        checkPreconditions('/k', stored, pre);
      } catch (e) {
        return e;
      }
      return undefined;
    };
    expect(isStorageError(thrown({ uid: 'u2' }), 'PreconditionUid')).to.equal(true);
    expect(isStorageError(thrown({ resourceVersion: '1' }), 'Conflict')).to.equal(true);
  });
});
