// The part of upstream's NodeRestriction admission the Node authorizer relies on: a create carries its name only in
// the body, which the authorizer cannot see, so a node agent creating a Node is held to its own name here.
import { errors } from '../../api/meta/errors.js';
import { nodeIdentity } from '../../policies/node/authorizer.js';
import type { AdmissionPlugin } from '../admission/plugin.js';

/** `enabled` is asked at each write (the authorizer chain can change on reload); default always. */
export function createNodeRestrictionAdmission(enabled: () => boolean = () => true): AdmissionPlugin {
  return {
    name: 'NodeRestriction',
    handles: (def) => def.group === '' && def.kind === 'Node',
    async validate(req) {
      if (!enabled()) return;
      const node = req.user && nodeIdentity(req.user);
      if (node === undefined || node === '' || req.name === node) return;
      throw errors.forbidden(
        { group: '', resource: 'nodes' },
        req.name,
        `node ${JSON.stringify(node)} is not allowed to modify node ${JSON.stringify(req.name)}`,
      );
    },
  };
}
