// /openapi/v2 as protobuf: the gnostic `openapi.v2.Document` message, the form client-go's discovery client asks for
// (`Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`) and decodes before kubectl or Helm validate
// against it. Only the messages a Gatehouse document uses are declared, with gnostic's field numbers; names are
// gnostic's too (snake_case, kept as written). Vendor extensions, defaults and enum values travel as YAML text in
// `Any.yaml` (JSON is YAML), which is where client-go's readers look for them.
import protobuf from 'protobufjs';
import type { SwaggerDocument } from './v2.js';

const OPENAPI_V2_PROTO = `
syntax = "proto3";
package openapi.v2;

message AdditionalPropertiesItem { oneof oneof { Schema schema = 1; bool boolean = 2; } }
// google.protobuf.Any value = 1 is never written.
message Any { string yaml = 2; }
message ApiKeySecurity { string type = 1; string name = 2; string in = 3; string description = 4; repeated NamedAny vendor_extension = 5; }
message BodyParameter {
  string description = 1; string name = 2; string in = 3; bool required = 4; Schema schema = 5;
  repeated NamedAny vendor_extension = 6;
}
message Definitions { repeated NamedSchema additional_properties = 1; }
message Document {
  string swagger = 1; Info info = 2; string host = 3; string base_path = 4; repeated string schemes = 5;
  repeated string consumes = 6; repeated string produces = 7; Paths paths = 8; Definitions definitions = 9;
  repeated SecurityRequirement security = 12; SecurityDefinitions security_definitions = 13;
  repeated NamedAny vendor_extension = 16;
}
message Info { string title = 1; string version = 2; string description = 3; repeated NamedAny vendor_extension = 7; }
message ItemsItem { repeated Schema schema = 1; }
message NamedAny { string name = 1; Any value = 2; }
message NamedPathItem { string name = 1; PathItem value = 2; }
message NamedResponseValue { string name = 1; ResponseValue value = 2; }
message NamedSchema { string name = 1; Schema value = 2; }
message NamedSecurityDefinitionsItem { string name = 1; SecurityDefinitionsItem value = 2; }
message NamedStringArray { string name = 1; StringArray value = 2; }
message NonBodyParameter {
  oneof oneof { QueryParameterSubSchema query_parameter_sub_schema = 3; PathParameterSubSchema path_parameter_sub_schema = 4; }
}
message Operation {
  repeated string tags = 1; string summary = 2; string description = 3; string operation_id = 5;
  repeated string produces = 6; repeated string consumes = 7; repeated ParametersItem parameters = 8;
  Responses responses = 9; repeated string schemes = 10; bool deprecated = 11; repeated NamedAny vendor_extension = 13;
}
message Parameter { oneof oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; } }
message ParametersItem { oneof oneof { Parameter parameter = 1; } }
message PathItem {
  string _ref = 1; Operation get = 2; Operation put = 3; Operation post = 4; Operation delete = 5; Operation options = 6;
  Operation head = 7; Operation patch = 8; repeated ParametersItem parameters = 9; repeated NamedAny vendor_extension = 10;
}
message PathParameterSubSchema {
  bool required = 1; string in = 2; string description = 3; string name = 4; string type = 5; string format = 6;
  bool unique_items = 19; repeated NamedAny vendor_extension = 22;
}
message Paths { repeated NamedAny vendor_extension = 1; repeated NamedPathItem path = 2; }
message Properties { repeated NamedSchema additional_properties = 1; }
message QueryParameterSubSchema {
  bool required = 1; string in = 2; string description = 3; string name = 4; bool allow_empty_value = 5;
  string type = 6; string format = 7; bool unique_items = 20; repeated NamedAny vendor_extension = 23;
}
message Response { string description = 1; SchemaItem schema = 2; repeated NamedAny vendor_extension = 5; }
message ResponseValue { oneof oneof { Response response = 1; } }
message Responses { repeated NamedResponseValue response_code = 1; repeated NamedAny vendor_extension = 2; }
message Schema {
  string _ref = 1; string format = 2; string title = 3; string description = 4; Any default = 5;
  double multiple_of = 6; double maximum = 7; bool exclusive_maximum = 8; double minimum = 9; bool exclusive_minimum = 10;
  int64 max_length = 11; int64 min_length = 12; string pattern = 13; int64 max_items = 14; int64 min_items = 15;
  bool unique_items = 16; int64 max_properties = 17; int64 min_properties = 18; repeated string required = 19;
  repeated Any enum = 20; AdditionalPropertiesItem additional_properties = 21; TypeItem type = 22; ItemsItem items = 23;
  repeated Schema all_of = 24; Properties properties = 25; bool read_only = 27; repeated NamedAny vendor_extension = 31;
}
message SchemaItem { oneof oneof { Schema schema = 1; } }
message SecurityDefinitions { repeated NamedSecurityDefinitionsItem additional_properties = 1; }
message SecurityDefinitionsItem { oneof oneof { ApiKeySecurity api_key_security = 2; } }
message SecurityRequirement { repeated NamedStringArray additional_properties = 1; }
message StringArray { repeated string value = 1; }
message TypeItem { repeated string value = 1; }
`;

const root = protobuf.parse(OPENAPI_V2_PROTO, { keepCase: true }).root;
root.resolveAll();
const DOCUMENT = root.lookupType('openapi.v2.Document');

type Json = Record<string, unknown>;
type Message = Record<string, unknown>;
const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const any = (value: unknown): Message => ({ yaml: JSON.stringify(value) });

function vendorExtensions(obj: Json): Message[] {
  return Object.entries(obj)
    .filter(([k]) => k.startsWith('x-'))
    .map(([name, value]) => ({ name, value: any(value) }));
}

/** Copies the listed keys that are present, renamed to gnostic's field names. */
function pick(obj: Json, fields: Record<string, string>): Message {
  const out: Message = {};
  for (const [json, proto] of Object.entries(fields)) if (obj[json] !== undefined) out[proto] = obj[json];
  return out;
}

const SCHEMA_SCALARS = {
  $ref: '_ref',
  format: 'format',
  title: 'title',
  description: 'description',
  multipleOf: 'multiple_of',
  maximum: 'maximum',
  exclusiveMaximum: 'exclusive_maximum',
  minimum: 'minimum',
  exclusiveMinimum: 'exclusive_minimum',
  maxLength: 'max_length',
  minLength: 'min_length',
  pattern: 'pattern',
  maxItems: 'max_items',
  minItems: 'min_items',
  uniqueItems: 'unique_items',
  maxProperties: 'max_properties',
  minProperties: 'min_properties',
  required: 'required',
  readOnly: 'read_only',
};

function schema(s: unknown): Message {
  if (!isJson(s)) return {};
  const out = pick(s, SCHEMA_SCALARS);
  if (s.default !== undefined) out.default = any(s.default);
  if (Array.isArray(s.enum)) out.enum = s.enum.map(any);
  if (typeof s.additionalProperties === 'boolean') out.additional_properties = { boolean: s.additionalProperties };
  else if (isJson(s.additionalProperties)) out.additional_properties = { schema: schema(s.additionalProperties) };
  if (s.type !== undefined) out.type = { value: Array.isArray(s.type) ? s.type : [s.type] };
  if (s.items !== undefined) out.items = { schema: (Array.isArray(s.items) ? s.items : [s.items]).map(schema) };
  if (Array.isArray(s.allOf)) out.all_of = s.allOf.map(schema);
  if (isJson(s.properties))
    out.properties = {
      additional_properties: Object.entries(s.properties).map(([name, v]) => ({ name, value: schema(v) })),
    };
  const ext = vendorExtensions(s);
  if (ext.length > 0) out.vendor_extension = ext;
  return out;
}

const PARAMETER_FIELDS = {
  required: 'required',
  in: 'in',
  description: 'description',
  name: 'name',
  type: 'type',
  format: 'format',
  uniqueItems: 'unique_items',
};

function parameter(p: Json): Message {
  if (p.in === 'body') {
    return {
      parameter: {
        body_parameter: {
          ...pick(p, { description: 'description', name: 'name', in: 'in', required: 'required' }),
          schema: schema(p.schema),
        },
      },
    };
  }
  const sub = { ...pick(p, PARAMETER_FIELDS), vendor_extension: vendorExtensions(p) };
  const which = p.in === 'path' ? 'path_parameter_sub_schema' : 'query_parameter_sub_schema';
  return { parameter: { non_body_parameter: { [which]: sub } } };
}

function operation(op: Json): Message {
  const out = pick(op, {
    tags: 'tags',
    summary: 'summary',
    description: 'description',
    operationId: 'operation_id',
    produces: 'produces',
    consumes: 'consumes',
    schemes: 'schemes',
    deprecated: 'deprecated',
  });
  if (Array.isArray(op.parameters)) out.parameters = (op.parameters as Json[]).map(parameter);
  if (isJson(op.responses)) {
    out.responses = {
      response_code: Object.entries(op.responses).map(([name, r]) => {
        const response = isJson(r) ? r : {};
        const value: Message = { description: response.description ?? '' };
        if (response.schema !== undefined) value.schema = { schema: schema(response.schema) };
        return { name, value: { response: value } };
      }),
    };
  }
  out.vendor_extension = vendorExtensions(op);
  return out;
}

function pathItem(item: Json): Message {
  const out: Message = {};
  for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'])
    if (isJson(item[method])) out[method] = operation(item[method]);
  if (Array.isArray(item.parameters)) out.parameters = (item.parameters as Json[]).map(parameter);
  return out;
}

/** The document's protobuf bytes. */
export function encodeOpenAPIV2(doc: SwaggerDocument): Buffer {
  const message: Message = {
    swagger: doc.swagger,
    info: { title: doc.info.title, version: doc.info.version },
    paths: { path: Object.entries(doc.paths).map(([name, item]) => ({ name, value: pathItem(item) })) },
    definitions: {
      additional_properties: Object.entries(doc.definitions).map(([name, s]) => ({ name, value: schema(s) })),
    },
    security: doc.security.map((req) => ({
      additional_properties: Object.entries(req).map(([name, value]) => ({ name, value: { value } })),
    })),
    security_definitions: {
      additional_properties: Object.entries(doc.securityDefinitions).map(([name, d]) => ({
        name,
        value: { api_key_security: pick(d, { type: 'type', name: 'name', in: 'in', description: 'description' }) },
      })),
    },
  };
  return Buffer.from(DOCUMENT.encode(message).finish());
}

/** Decodes bytes of the form encodeOpenAPIV2 writes into gnostic's message shape (field names as declared). */
export function decodeOpenAPIV2(bytes: Uint8Array): Message {
  return DOCUMENT.toObject(DOCUMENT.decode(bytes), { defaults: false, longs: Number });
}
