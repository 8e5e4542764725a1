// Protobuf schema (proto2 text, compiled once by api/proto/registry.ts) of the apimachinery messages: object and list
// metadata, Status, DeleteOptions, WatchEvent, the runtime envelope and the value types with their own JSON forms.
// Field numbers and wire types are those of the upstream generated.proto files (meta/v1, runtime, api/resource,
// util/intstr), so the bytes are what stock clients read and write; message and field names are ours: fields are
// named as their JSON keys, since names never reach the wire.
//
// Field options read by the JSON mapping (api/proto/json-mapping.ts):
//   (keep_zero) = true  a zero value ("" / 0 / false) that is on the wire stays in the JSON: the Go field is a pointer
//                       or has no omitempty. Without it a zero value is the Go zero value and is left out, as Go's
//                       JSON encoding does (Go writes every non-pointer scalar to protobuf, even when zero).
//   (inline) = true     the message's fields are merged into the parent JSON object (Go embedded structs).
export const META_PROTO = `
syntax = "proto2";
package gatehouse.meta;

// The runtime envelope and its parts.
message TypeMeta {
  optional string apiVersion = 1;
  optional string kind = 2;
}
message Unknown {
  optional TypeMeta typeMeta = 1;
  optional bytes raw = 2;
  optional string contentEncoding = 3;
  optional string contentType = 4;
}
// JSON: any value; bytes: its JSON text (or an enveloped protobuf object inside a protobuf WatchEvent).
message RawExtension {
  optional bytes raw = 1;
}

// Value types whose JSON form is not an object (mapped in json-mapping.ts).
message Time {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}
message MicroTime {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}
message Quantity {
  optional string string = 1;
}
message IntOrString {
  optional int64 type = 1;
  optional int32 intVal = 2;
  optional string strVal = 3;
}
message FieldsV1 {
  optional bytes Raw = 1;
}
// authentication/v1 and authorization/v1 ExtraValue: JSON is the array of strings itself.
message ExtraValue {
  repeated string items = 1;
}

message ObjectMeta {
  optional string name = 1;
  optional string generateName = 2;
  optional string namespace = 3;
  optional string selfLink = 4;
  optional string uid = 5;
  optional string resourceVersion = 6;
  optional int64 generation = 7;
  optional Time creationTimestamp = 8;
  optional Time deletionTimestamp = 9;
  optional int64 deletionGracePeriodSeconds = 10 [(keep_zero) = true];
  map<string, string> labels = 11;
  map<string, string> annotations = 12;
  repeated OwnerReference ownerReferences = 13;
  repeated string finalizers = 14;
  repeated ManagedFieldsEntry managedFields = 17;
}
message OwnerReference {
  optional string apiVersion = 5 [(keep_zero) = true];
  optional string kind = 1 [(keep_zero) = true];
  optional string name = 3 [(keep_zero) = true];
  optional string uid = 4 [(keep_zero) = true];
  optional bool controller = 6 [(keep_zero) = true];
  optional bool blockOwnerDeletion = 7 [(keep_zero) = true];
}
message ManagedFieldsEntry {
  optional string manager = 1;
  optional string operation = 2;
  optional string apiVersion = 3;
  optional Time time = 4;
  optional string fieldsType = 6;
  optional FieldsV1 fieldsV1 = 7;
  optional string subresource = 8;
}
message ListMeta {
  optional string selfLink = 1;
  optional string resourceVersion = 2;
  optional string continue = 3;
  optional int64 remainingItemCount = 4 [(keep_zero) = true];
}
message LabelSelector {
  map<string, string> matchLabels = 1;
  repeated LabelSelectorRequirement matchExpressions = 2;
}
message LabelSelectorRequirement {
  optional string key = 1 [(keep_zero) = true];
  optional string operator = 2 [(keep_zero) = true];
  repeated string values = 3;
}
message FieldSelectorRequirement {
  optional string key = 1 [(keep_zero) = true];
  optional string operator = 2 [(keep_zero) = true];
  repeated string values = 3;
}

message Status {
  optional ListMeta metadata = 1;
  optional string status = 2;
  optional string message = 3;
  optional string reason = 4;
  optional StatusDetails details = 5;
  optional int32 code = 6;
}
message StatusDetails {
  optional string name = 1;
  optional string group = 2;
  optional string kind = 3;
  optional string uid = 6;
  repeated StatusCause causes = 4;
  optional int32 retryAfterSeconds = 5;
}
message StatusCause {
  optional string reason = 1;
  optional string message = 2;
  optional string field = 3;
}

message DeleteOptions {
  optional int64 gracePeriodSeconds = 1 [(keep_zero) = true];
  optional Preconditions preconditions = 2;
  optional bool orphanDependents = 3 [(keep_zero) = true];
  optional string propagationPolicy = 4 [(keep_zero) = true];
  repeated string dryRun = 5;
  optional bool ignoreStoreReadErrorWithClusterBreakingPotential = 6 [(keep_zero) = true];
}
message Preconditions {
  optional string uid = 1 [(keep_zero) = true];
  optional string resourceVersion = 2 [(keep_zero) = true];
}

message WatchEvent {
  optional string type = 1 [(keep_zero) = true];
  optional RawExtension object = 2;
}

message PartialObjectMetadata {
  optional ObjectMeta metadata = 1;
}
message PartialObjectMetadataList {
  optional ListMeta metadata = 1;
  repeated PartialObjectMetadata items = 2;
}
`;
