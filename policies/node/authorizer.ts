// The Node authorizer: node agents (user `system:node:<name>` in group `system:nodes`) get what their work needs.
// Upstream grants a node the objects its pods reference (a graph of pods, secrets, configmaps, volumes...) plus the
// static rules of the `system:node` role. Gatehouse serves no pods, so the graph is empty and what is left is kept
// minimal and documented here:
// - nodes: get, list, watch of every Node (the `system:node` role's read of nodes);
// - nodes: create, update, patch of its own Node object only, nodes/status: update, patch of its own only;
//   another node's object gets NoOpinion with a reason, so a later authorizer may still decide (upstream leaves
//   this to NodeRestriction admission; without that plugin the authorizer checks the name it can see, and a create,
//   whose name is only in the body, is checked by the node-restriction write check in the gateway);
// - create of tokenreviews and subjectaccessreviews, which a node agent uses for delegated authn/authz.
// Everything else, and every other user, gets NoOpinion.
import type { Attributes, AuthorizationResult, Authorizer } from '../authorizer.js';
import { NO_OPINION } from '../authorizer.js';

export const NODES_GROUP = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';

/** The node name of a node agent's identity; undefined for other users, '' for a malformed node identity. */
export function nodeIdentity(user: { name: string; groups: string[] }): string | undefined {
  if (!user.groups.includes(NODES_GROUP) || !user.name.startsWith(NODE_USER_PREFIX)) return undefined;
  return user.name.slice(NODE_USER_PREFIX.length);
}

const ALLOW: AuthorizationResult = { decision: 'Allow', reason: '' };
const READ = new Set(['get', 'list', 'watch']);
const WRITE_OWN = new Set(['create', 'update', 'patch']);
const REVIEWS = new Set([
  'authentication.platform.io/tokenreviews',
  'authorization.platform.io/subjectaccessreviews',
  'authorization.platform.io/localsubjectaccessreviews',
]);

function authorizeNodeObject(node: string, attrs: Attributes): AuthorizationResult {
  if (attrs.subresource === '') {
    if (READ.has(attrs.verb)) return ALLOW;
    if (WRITE_OWN.has(attrs.verb)) {
      // A create names its object in the body only; the gateway's node-restriction check holds it to its own name.
      if (attrs.name === node || (attrs.verb === 'create' && attrs.name === '')) return ALLOW;
      return {
        decision: 'NoOpinion',
        reason: `node '${node}' cannot modify node '${attrs.name}', only its own Node object`,
      };
    }
    return NO_OPINION;
  }
  if (attrs.subresource === 'status' && (attrs.verb === 'update' || attrs.verb === 'patch')) {
    if (attrs.name === node) return ALLOW;
    return {
      decision: 'NoOpinion',
      reason: `node '${node}' cannot modify the status of node '${attrs.name}', only its own`,
    };
  }
  return NO_OPINION;
}

export function createNodeAuthorizer(): Authorizer {
  return {
    name: 'Node',
    async authorize(attrs) {
      const node = nodeIdentity(attrs.user);
      if (node === undefined) return NO_OPINION;
      if (node === '')
        return { decision: 'NoOpinion', reason: `unknown node for user ${JSON.stringify(attrs.user.name)}` };
      if (!attrs.isResourceRequest) return NO_OPINION;
      if (attrs.apiGroup === '' && attrs.resource === 'nodes') return authorizeNodeObject(node, attrs);
      if (attrs.verb === 'create' && attrs.subresource === '' && REVIEWS.has(`${attrs.apiGroup}/${attrs.resource}`))
        return ALLOW;
      return NO_OPINION;
    },
  };
}
