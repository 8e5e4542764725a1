// The schema of CustomResourceDefinition itself (apiextensions/v1 types.go). openAPIV3Schema is a recursive
// JSONSchemaProps: it is kept here as an opaque subtree and checked by structural.ts and openapi-rules.ts.
import type { JSONSchema } from '../../schema.js';
import { conditionStatus } from '../../common/object-meta.js';
import {
  arr,
  bool,
  describe,
  int32,
  mapList,
  named,
  obj,
  str,
  stringList,
  time,
} from '../../common/schema-builders.js';

const DEF = 'io.platform.api.apiextensions.v1';

const namesSchema = named(
  `${DEF}.CustomResourceDefinitionNames`,
  obj(
    {
      plural: str(
        'plural is the plural name of the resource to serve. The custom resources are served under `/apis/<group>/<version>/.../<plural>`. Must match the name of the CustomResourceDefinition (in the form `<names.plural>.<group>`). Must be all lowercase.',
      ),
      singular: str(
        'singular is the singular name of the resource. It must be all lowercase. Defaults to lowercased `kind`.',
      ),
      shortNames: stringList(
        'shortNames are short names for the resource, exposed in API discovery documents, and used by clients to support invocations like `kubectl get <shortname>`. It must be all lowercase.',
        'atomic',
      ),
      kind: str(
        'kind is the serialized kind of the resource. It is normally CamelCase and singular. Custom resource instances will use this value as the `kind` attribute in API calls.',
      ),
      listKind: str('listKind is the serialized kind of the list for this resource. Defaults to "`kind`List".'),
      categories: stringList(
        "categories is a list of grouped resources this custom resource belongs to (e.g. 'all'). This is published in API discovery documents, and used by clients to support invocations like `kubectl get all`.",
        'atomic',
      ),
    },
    'CustomResourceDefinitionNames indicates the names to serve this CustomResourceDefinition',
    ['plural', 'kind'],
  ),
);

const jsonSchemaProps = named(`${DEF}.JSONSchemaProps`, {
  type: 'object',
  description:
    'JSONSchemaProps is a JSON-Schema following Specification Draft 4 (http://json-schema.org/), with the x-kubernetes-* extensions.',
  'x-kubernetes-preserve-unknown-fields': true,
} satisfies JSONSchema);

const columnSchema = named(
  `${DEF}.CustomResourceColumnDefinition`,
  obj(
    {
      name: str('name is a human readable name for the column.'),
      type: str('type is an OpenAPI type definition for this column: integer, number, string, boolean or date.'),
      format: str(
        "format is an optional OpenAPI type definition for this column. The 'name' format is applied to the primary identifier column to assist in clients identifying column is the resource name.",
      ),
      description: str('description is a human readable description of this column.'),
      priority: int32(
        'priority is an integer defining the relative importance of this column compared to others. Lower numbers are considered higher priority. Columns that may be omitted in limited space scenarios should be given a priority greater than 0.',
      ),
      jsonPath: str(
        'jsonPath is a simple JSON path (i.e. with array notation) which is evaluated against each custom resource to produce the value for this column.',
      ),
    },
    'CustomResourceColumnDefinition specifies a column for server side printing.',
    ['name', 'type', 'jsonPath'],
  ),
);

const scaleSchema = named(
  `${DEF}.CustomResourceSubresourceScale`,
  obj(
    {
      specReplicasPath: str(
        'specReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `spec.replicas`. Only JSON paths without the array notation are allowed. Must be a JSON Path under `.spec`.',
      ),
      statusReplicasPath: str(
        'statusReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `status.replicas`. Only JSON paths without the array notation are allowed. Must be a JSON Path under `.status`.',
      ),
      labelSelectorPath: str(
        'labelSelectorPath defines the JSON path inside of a custom resource that corresponds to Scale `status.selector`. Only JSON paths without the array notation are allowed. Must be a JSON Path under `.status` or `.spec`.',
      ),
    },
    'CustomResourceSubresourceScale defines how to serve the scale subresource for CustomResources.',
    ['specReplicasPath', 'statusReplicasPath'],
  ),
);

const versionSchema = named(
  `${DEF}.CustomResourceDefinitionVersion`,
  obj(
    {
      name: str(
        'name is the version name, e.g. “v1”, “v2beta1”, etc. The custom resources are served under this version at `/apis/<group>/<version>/...` if `served` is true.',
      ),
      served: bool('served is a flag enabling/disabling this version from being served via REST APIs'),
      storage: bool(
        'storage indicates this version should be used when persisting custom resources to storage. There must be exactly one version with storage=true.',
      ),
      deprecated: bool(
        'deprecated indicates this version of the custom resource API is deprecated. When set to true, API requests to this version receive a warning header in the server response. Defaults to false.',
      ),
      deprecationWarning: str(
        'deprecationWarning overrides the default warning returned to API clients. May only be set when `deprecated` is true.',
      ),
      schema: obj(
        {
          openAPIV3Schema: describe(
            jsonSchemaProps,
            'openAPIV3Schema is the OpenAPI v3 schema to use for validation and pruning.',
          ),
        },
        'schema describes the schema used for validation, pruning, and defaulting of this version of the custom resource.',
      ),
      subresources: obj(
        {
          status: obj({}, 'status indicates the custom resource should serve a `/status` subresource.'),
          scale: describe(
            scaleSchema,
            'scale indicates the custom resource should serve a `/scale` subresource that returns an `autoscaling/v1` Scale object.',
          ),
        },
        'subresources specify what subresources this version of the defined custom resource have.',
      ),
      additionalPrinterColumns: arr(
        columnSchema,
        'additionalPrinterColumns specifies additional columns returned in Table output. If no columns are specified, a single column displaying the age of the custom resource is used.',
        'atomic',
      ),
      selectableFields: arr(
        obj(
          {
            jsonPath: str(
              'jsonPath is a simple JSON path which is evaluated against each custom resource to produce a field selector value. Must point to a field of type string, boolean or integer.',
            ),
          },
          'SelectableField specifies the JSON path of a field that may be used with field selectors.',
          ['jsonPath'],
        ),
        'selectableFields specifies paths to fields that may be used as field selectors. A maximum of 8 selectable fields are allowed.',
        'atomic',
      ),
    },
    'CustomResourceDefinitionVersion describes a version for CRD.',
    ['name', 'served', 'storage'],
  ),
);

const serviceSchema = obj(
  {
    namespace: str('namespace is the namespace of the service. Required'),
    name: str('name is the name of the service. Required'),
    path: str('path is an optional URL path at which the webhook will be contacted.'),
    port: int32(
      'port is an optional service port at which the webhook will be contacted. `port` should be a valid port number (1-65535, inclusive). Defaults to 443 for backward compatibility.',
    ),
  },
  'ServiceReference holds a reference to Service.legacy.k8s.io',
  ['namespace', 'name'],
);

const conversionSchema = obj(
  {
    strategy: str(
      'strategy specifies how custom resources are converted between versions. Allowed values are: `None` (only the apiVersion changes) and `Webhook` (the API server calls an external webhook to do the conversion).',
    ),
    webhook: obj(
      {
        clientConfig: obj(
          {
            url: str(
              'url gives the location of the webhook, in standard URL form (`scheme://host:port/path`). Exactly one of `url` or `service` must be specified.',
            ),
            service: describe(
              serviceSchema,
              'service is a reference to the service for this webhook. Either service or url must be specified.',
            ),
            caBundle: str(
              "caBundle is a PEM encoded CA bundle which will be used to validate the webhook's server certificate. If unspecified, system trust roots on the apiserver are used.",
              { format: 'byte' },
            ),
          },
          'WebhookClientConfig contains the information to make a TLS connection with the webhook.',
        ),
        conversionReviewVersions: stringList(
          'conversionReviewVersions is an ordered list of preferred `ConversionReview` versions the Webhook expects.',
          'atomic',
        ),
      },
      'webhook describes how to call the conversion webhook. Required when `strategy` is set to `Webhook`.',
      ['conversionReviewVersions'],
    ),
  },
  'CustomResourceConversion describes how to convert different versions of a CR.',
  ['strategy'],
);

export const crdSpecSchema = obj(
  {
    group: str(
      'group is the API group of the defined custom resource. The custom resources are served under `/apis/<group>/...`. Must match the name of the CustomResourceDefinition (in the form `<names.plural>.<group>`).',
    ),
    names: describe(namesSchema, 'names specify the resource and kind names for the custom resource.'),
    scope: str(
      'scope indicates whether the defined custom resource is cluster- or namespace-scoped. Allowed values are `Cluster` and `Namespaced`.',
    ),
    versions: arr(versionSchema, 'versions is the list of all API versions of the defined custom resource.', 'atomic'),
    conversion: conversionSchema,
    preserveUnknownFields: bool(
      'preserveUnknownFields indicates that object fields which are not specified in the OpenAPI schema should be preserved when persisting to storage. Must be false in v1.',
    ),
  },
  'CustomResourceDefinitionSpec describes how a user wants their resource to appear',
  ['group', 'names', 'scope', 'versions'],
);

const conditionSchema = obj(
  {
    type: str('type is the type of the condition. Types include Established, NamesAccepted and Terminating.'),
    status: conditionStatus('status is the status of the condition. Can be True, False, Unknown.'),
    lastTransitionTime: time('lastTransitionTime last time the condition transitioned from one status to another.'),
    reason: str("reason is a unique, one-word, CamelCase reason for the condition's last transition."),
    message: str('message is a human-readable message indicating details about last transition.'),
  },
  'CustomResourceDefinitionCondition contains details for the current condition of this pod.',
  ['type', 'status'],
);

export const crdStatusSchema = obj(
  {
    conditions: mapList(
      conditionSchema,
      'type',
      'conditions indicate state for particular aspects of a CustomResourceDefinition',
    ),
    acceptedNames: describe(
      namesSchema,
      'acceptedNames are the names that are actually being used to serve discovery. They may be different than the names in spec.',
    ),
    storedVersions: stringList(
      'storedVersions lists all versions of CustomResources that were ever persisted.',
      'atomic',
    ),
  },
  'CustomResourceDefinitionStatus indicates the state of the CustomResourceDefinition',
);
