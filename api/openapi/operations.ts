// The `paths` of one group-version document: every operation the standard set serves per resource, with the
// parameters and vendor extensions kubectl reads. kubectl's create/apply look for a PATCH operation whose
// x-kubernetes-group-version-kind is the kind and that lists a `fieldValidation` parameter (inline, by name).
import type { KindDefinition } from '../scheme.js';
import { ref, schemaNameOf, type CreateOnlyKind } from './definitions.js';

type Param = Record<string, unknown>;
type Operation = Record<string, unknown>;
export type PathItem = Record<string, unknown>;

const META = 'io.platform.apimachinery.pkg.apis.meta.v1';

const query = (name: string, type: string, description: string, extra: Record<string, unknown> = {}): Param => ({
  name,
  in: 'query',
  description,
  schema: { type, uniqueItems: true, ...extra },
});
const pathParam = (name: string, description: string): Param => ({
  name,
  in: 'path',
  description,
  required: true,
  schema: { type: 'string', uniqueItems: true },
});

const P = {
  pretty: query('pretty', 'string', "If 'true', then the output is pretty printed."),
  dryRun: query('dryRun', 'string', 'When present, modifications are not persisted. Valid value: All.'),
  fieldManager: query(
    'fieldManager',
    'string',
    'A name associated with the actor or entity that is making these changes; at most 128 printable characters.',
  ),
  fieldValidation: query(
    'fieldValidation',
    'string',
    'How the server handles unknown or duplicate fields in the body: Ignore, Warn (default) or Strict.',
  ),
  force: query(
    'force',
    'boolean',
    'Force "Apply" requests to re-acquire conflicting fields owned by other managers; must be unset for non-apply patches.',
  ),
  allowWatchBookmarks: query('allowWatchBookmarks', 'boolean', 'Requests watch events with type BOOKMARK.'),
  continue: query('continue', 'string', 'The continue token from a previous paged list.'),
  fieldSelector: query(
    'fieldSelector',
    'string',
    'A selector to restrict the list of returned objects by their fields.',
  ),
  labelSelector: query(
    'labelSelector',
    'string',
    'A selector to restrict the list of returned objects by their labels.',
  ),
  limit: query('limit', 'integer', 'Maximum number of responses to return for a list call.'),
  resourceVersion: query(
    'resourceVersion',
    'string',
    'Constrains which resource versions the request may be served from.',
  ),
  resourceVersionMatch: query(
    'resourceVersionMatch',
    'string',
    'How resourceVersion is applied to list calls: Exact or NotOlderThan.',
  ),
  sendInitialEvents: query(
    'sendInitialEvents',
    'boolean',
    'With watch=true, start the stream with synthetic events for the current state.',
  ),
  timeoutSeconds: query('timeoutSeconds', 'integer', 'Timeout for the list/watch call.'),
  watch: query(
    'watch',
    'boolean',
    'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.',
  ),
  gracePeriodSeconds: query(
    'gracePeriodSeconds',
    'integer',
    'The duration in seconds before the object should be deleted.',
  ),
  propagationPolicy: query(
    'propagationPolicy',
    'string',
    'Whether and how garbage collection will be performed: Orphan, Background or Foreground.',
  ),
  ignoreStoreReadError: query(
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'boolean',
    'Delete an object that cannot be read from storage (unsafe).',
  ),
};

const LIST_PARAMS = [
  P.allowWatchBookmarks,
  P.continue,
  P.fieldSelector,
  P.labelSelector,
  P.limit,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
  P.watch,
];
const WRITE_PARAMS = [P.dryRun, P.fieldManager, P.fieldValidation];
const DELETE_PARAMS = [P.dryRun, P.gracePeriodSeconds, P.ignoreStoreReadError, P.propagationPolicy];
const DELETE_COLLECTION_PARAMS = [
  P.continue,
  P.dryRun,
  P.fieldSelector,
  P.gracePeriodSeconds,
  P.ignoreStoreReadError,
  P.labelSelector,
  P.limit,
  P.propagationPolicy,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
];
// Only the patch types the server accepts: clients pick their patch type from this list.
export const PATCH_CONTENT_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

function content(schemaName: string, types = ['application/json', 'application/yaml']): Record<string, unknown> {
  return Object.fromEntries(types.map((t) => [t, { schema: ref(schemaName) }]));
}

const respond = (codes: number[], schemaName: string, types?: string[]) => ({
  ...Object.fromEntries(
    codes.map((c) => [
      String(c),
      { description: c === 201 ? 'Created' : c === 202 ? 'Accepted' : 'OK', content: content(schemaName, types) },
    ]),
  ),
  401: { description: 'Unauthorized' },
});

/** camelCase group name as kube's operation ids and tags use it: core, apps, rbacAuthorization, networking. */
function groupWord(group: string): string {
  if (!group) return 'core';
  const words = group.replace(/\.platform\.io$/, '').split('.');
  return words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
}

const cap = (s: string) => s[0].toUpperCase() + s.slice(1);

export function pathPrefix(def: Pick<KindDefinition, 'group' | 'version'>): string {
  return def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
}

/** All path items for one kind. */
export function kindPaths(def: KindDefinition): Record<string, PathItem> {
  const tag = `${groupWord(def.group)}_${def.version}`;
  const gv = `${cap(groupWord(def.group))}${cap(def.version)}`;
  const scope = def.namespaced ? 'Namespaced' : '';
  const kindName = schemaNameOf(def, def.kind);
  const listName = schemaNameOf(def, `${def.kind}List`);
  const ext = { 'x-kubernetes-group-version-kind': { group: def.group, version: def.version, kind: def.kind } };
  const op = (action: string, id: string, description: string, extra: Operation): Operation => ({
    tags: [tag],
    description,
    operationId: id,
    ...extra,
    'x-kubernetes-action': action,
    ...ext,
  });
  const body = (schemaName: string, types = ['*/*']) => ({
    content: Object.fromEntries(types.map((t) => [t, { schema: ref(schemaName) }])),
    required: true,
  });
  const deleteBody = { content: { '*/*': { schema: ref(`${META}.DeleteOptions`) } } };

  const coll = def.namespaced
    ? `${pathPrefix(def)}/namespaces/{namespace}/${def.resource}`
    : `${pathPrefix(def)}/${def.resource}`;
  const scopeParams = def.namespaced
    ? [pathParam('namespace', 'object name and auth scope, such as for teams and projects')]
    : [];
  const nameParam = pathParam('name', `name of the ${def.kind}`);
  const listOp = (id: string) =>
    op('list', id, `list or watch objects of kind ${def.kind}`, {
      parameters: LIST_PARAMS,
      responses: respond([200], listName, ['application/json', 'application/yaml', 'application/json;stream=watch']),
    });
  const replace = (id: string, what: string) =>
    op('put', id, `replace ${what} of the specified ${def.kind}`, {
      parameters: WRITE_PARAMS,
      requestBody: body(kindName),
      responses: respond([200, 201], kindName),
    });
  const patch = (id: string, what: string) =>
    op('patch', id, `partially update ${what} of the specified ${def.kind}`, {
      parameters: [...WRITE_PARAMS, P.force],
      requestBody: body(`${META}.Patch`, PATCH_CONTENT_TYPES),
      responses: respond([200, 201], kindName),
    });

  const paths: Record<string, PathItem> = {
    [coll]: {
      get: listOp(`list${gv}${scope}${def.kind}`),
      post: op('post', `create${gv}${scope}${def.kind}`, `create a ${def.kind}`, {
        parameters: WRITE_PARAMS,
        requestBody: body(kindName),
        responses: respond([200, 201, 202], kindName),
      }),
      ...(def.noDeleteCollection
        ? {}
        : {
            delete: op(
              'deletecollection',
              `delete${gv}Collection${scope}${def.kind}`,
              `delete collection of ${def.kind}`,
              {
                parameters: DELETE_COLLECTION_PARAMS,
                requestBody: deleteBody,
                responses: respond([200], `${META}.Status`),
              },
            ),
          }),
      parameters: [...scopeParams, P.pretty],
    },
    [`${coll}/{name}`]: {
      get: op('get', `read${gv}${scope}${def.kind}`, `read the specified ${def.kind}`, {
        responses: respond([200], kindName),
      }),
      put: replace(`replace${gv}${scope}${def.kind}`, ''),
      patch: patch(`patch${gv}${scope}${def.kind}`, ''),
      delete: op('delete', `delete${gv}${scope}${def.kind}`, `delete a ${def.kind}`, {
        parameters: DELETE_PARAMS,
        requestBody: deleteBody,
        responses: respond([200, 202], def.deleteReturnsObject ? kindName : `${META}.Status`),
      }),
      parameters: [nameParam, ...scopeParams, P.pretty],
    },
  };
  if (def.namespaced) {
    paths[`${pathPrefix(def)}/${def.resource}`] = {
      get: listOp(`list${gv}${def.kind}ForAllNamespaces`),
      parameters: [P.pretty],
    };
  }
  if (def.statusSubresource) {
    paths[`${coll}/{name}/status`] = {
      get: op('get', `read${gv}${scope}${def.kind}Status`, `read status of the specified ${def.kind}`, {
        responses: respond([200], kindName),
      }),
      put: replace(`replace${gv}${scope}${def.kind}Status`, 'status'),
      patch: patch(`patch${gv}${scope}${def.kind}Status`, 'status'),
      parameters: [nameParam, ...scopeParams, P.pretty],
    };
  }
  for (const [sub, target] of Object.entries(def.projectionSubresources ?? {})) {
    const targetName = schemaNameOf(target, target.kind);
    const targetExt = {
      'x-kubernetes-group-version-kind': { group: target.group, version: target.version, kind: target.kind },
    };
    const id = `${gv}${scope}${def.kind}${cap(sub)}`;
    paths[`${coll}/{name}/${sub}`] = {
      get: {
        ...op('get', `read${id}`, `read ${sub} of the specified ${def.kind}`, {
          responses: respond([200], targetName),
        }),
        ...targetExt,
      },
      put: {
        ...op('put', `replace${id}`, `replace ${sub} of the specified ${def.kind}`, {
          parameters: WRITE_PARAMS,
          requestBody: body(targetName),
          responses: respond([200, 201], targetName),
        }),
        ...targetExt,
      },
      // Server-side apply is not served on projections.
      patch: {
        ...op('patch', `patch${id}`, `partially update ${sub} of the specified ${def.kind}`, {
          parameters: [...WRITE_PARAMS, P.force],
          requestBody: body(
            `${META}.Patch`,
            PATCH_CONTENT_TYPES.filter((t) => t !== 'application/apply-patch+yaml'),
          ),
          responses: respond([200, 201], targetName),
        }),
        ...targetExt,
      },
      parameters: [nameParam, ...scopeParams, P.pretty],
    };
  }
  return paths;
}

/** The one path of a create-only kind: POST on its collection, answered with the kind. */
export function createOnlyPaths(k: CreateOnlyKind): Record<string, PathItem> {
  const gv = `${cap(groupWord(k.group))}${cap(k.version)}`;
  const scope = k.namespaced ? 'Namespaced' : '';
  const name = schemaNameOf(k, k.kind);
  const coll = k.namespaced
    ? `${pathPrefix(k)}/namespaces/{namespace}/${k.resource}`
    : `${pathPrefix(k)}/${k.resource}`;
  const scopeParams = k.namespaced
    ? [pathParam('namespace', 'object name and auth scope, such as for teams and projects')]
    : [];
  return {
    [coll]: {
      post: {
        tags: [`${groupWord(k.group)}_${k.version}`],
        description: `create a ${k.kind}`,
        operationId: `create${gv}${scope}${k.kind}`,
        parameters: WRITE_PARAMS,
        requestBody: { content: { '*/*': { schema: ref(name) } }, required: true },
        responses: respond([200, 201, 202], name),
        'x-kubernetes-action': 'post',
        'x-kubernetes-group-version-kind': { group: k.group, version: k.version, kind: k.kind },
      },
      parameters: [...scopeParams, P.pretty],
    },
  };
}
