// Protobuf schema of apiextensions/v1 CustomResourceDefinition, with the field numbers of apiextensions-apiserver's
// generated.proto. JSONSchemaProps keys that are not identifiers ($ref, x-kubernetes-*) carry their JSON key in
// (json); the unions (JSONSchemaPropsOrArray, OrBool, OrStringArray) and JSON have JSON forms of their own, mapped by
// json-unions.ts.
import { WEBHOOK_CLIENT_CONFIG_MESSAGES } from './admissionregistration-proto.js';
export const APIEXTENSIONS_PROTO = `
syntax = "proto2";
package gatehouse.apiextensions;
message CustomResourceDefinition {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional CustomResourceDefinitionSpec spec = 2;
  optional CustomResourceDefinitionStatus status = 3;
}
message CustomResourceDefinitionList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated CustomResourceDefinition items = 2;
}
message CustomResourceDefinitionSpec {
  optional string group = 1 [(keep_zero) = true];
  optional CustomResourceDefinitionNames names = 3;
  optional string scope = 4 [(keep_zero) = true];
  repeated CustomResourceDefinitionVersion versions = 7;
  optional CustomResourceConversion conversion = 9;
  optional bool preserveUnknownFields = 10;
}
message CustomResourceDefinitionNames {
  optional string plural = 1 [(keep_zero) = true];
  optional string singular = 2;
  repeated string shortNames = 3;
  optional string kind = 4 [(keep_zero) = true];
  optional string listKind = 5;
  repeated string categories = 6;
}
message CustomResourceDefinitionVersion {
  optional string name = 1 [(keep_zero) = true];
  optional bool served = 2 [(keep_zero) = true];
  optional bool storage = 3 [(keep_zero) = true];
  optional CustomResourceValidation schema = 4;
  optional CustomResourceSubresources subresources = 5;
  repeated CustomResourceColumnDefinition additionalPrinterColumns = 6;
  optional bool deprecated = 7;
  optional string deprecationWarning = 8;
  repeated SelectableField selectableFields = 9;
}
message SelectableField {
  optional string jsonPath = 1 [(keep_zero) = true];
}
message CustomResourceColumnDefinition {
  optional string name = 1 [(keep_zero) = true];
  optional string type = 2 [(keep_zero) = true];
  optional string format = 3;
  optional string description = 4;
  optional int32 priority = 5;
  optional string jsonPath = 6 [(keep_zero) = true];
}
message CustomResourceSubresources {
  optional CustomResourceSubresourceStatus status = 1;
  optional CustomResourceSubresourceScale scale = 2;
}
message CustomResourceSubresourceStatus {
}
message CustomResourceSubresourceScale {
  optional string specReplicasPath = 1 [(keep_zero) = true];
  optional string statusReplicasPath = 2 [(keep_zero) = true];
  optional string labelSelectorPath = 3;
}
message CustomResourceValidation {
  optional JSONSchemaProps openAPIV3Schema = 1;
}
message CustomResourceConversion {
  optional string strategy = 1 [(keep_zero) = true];
  optional WebhookConversion webhook = 2;
}
message WebhookConversion {
  optional WebhookClientConfig clientConfig = 2;
  repeated string conversionReviewVersions = 3;
}
${WEBHOOK_CLIENT_CONFIG_MESSAGES}message CustomResourceDefinitionStatus {
  repeated CustomResourceDefinitionCondition conditions = 1;
  optional CustomResourceDefinitionNames acceptedNames = 2;
  repeated string storedVersions = 3;
}
message CustomResourceDefinitionCondition {
  optional string type = 1 [(keep_zero) = true];
  optional string status = 2 [(keep_zero) = true];
  optional gatehouse.meta.Time lastTransitionTime = 3;
  optional string reason = 4;
  optional string message = 5;
}
message ExternalDocumentation {
  optional string description = 1;
  optional string url = 2;
}
message JSON {
  optional bytes raw = 1;
}
message ValidationRule {
  optional string rule = 1 [(keep_zero) = true];
  optional string message = 2;
  optional string messageExpression = 3;
  optional string reason = 4;
  optional string fieldPath = 5;
  optional bool optionalOldSelf = 6 [(keep_zero) = true];
}
message JSONSchemaProps {
  optional string id = 1;
  optional string schema = 2 [(json) = "$schema"];
  optional string ref = 3 [(json) = "$ref"];
  optional string description = 4;
  optional string type = 5;
  optional string format = 6;
  optional string title = 7;
  optional JSON default = 8;
  optional double maximum = 9 [(keep_zero) = true];
  optional bool exclusiveMaximum = 10;
  optional double minimum = 11 [(keep_zero) = true];
  optional bool exclusiveMinimum = 12;
  optional int64 maxLength = 13 [(keep_zero) = true];
  optional int64 minLength = 14 [(keep_zero) = true];
  optional string pattern = 15;
  optional int64 maxItems = 16 [(keep_zero) = true];
  optional int64 minItems = 17 [(keep_zero) = true];
  optional bool uniqueItems = 18;
  optional double multipleOf = 19 [(keep_zero) = true];
  repeated JSON enum = 20;
  optional int64 maxProperties = 21 [(keep_zero) = true];
  optional int64 minProperties = 22 [(keep_zero) = true];
  repeated string required = 23;
  optional JSONSchemaPropsOrArray items = 24;
  repeated JSONSchemaProps allOf = 25;
  repeated JSONSchemaProps oneOf = 26;
  repeated JSONSchemaProps anyOf = 27;
  optional JSONSchemaProps not = 28;
  map<string, JSONSchemaProps> properties = 29;
  optional JSONSchemaPropsOrBool additionalProperties = 30;
  map<string, JSONSchemaProps> patternProperties = 31;
  map<string, JSONSchemaPropsOrStringArray> dependencies = 32;
  optional JSONSchemaPropsOrBool additionalItems = 33;
  map<string, JSONSchemaProps> definitions = 34;
  optional ExternalDocumentation externalDocs = 35;
  optional JSON example = 36;
  optional bool nullable = 37;
  optional bool xKubernetesPreserveUnknownFields = 38 [(json) = "x-kubernetes-preserve-unknown-fields", (keep_zero) = true];
  optional bool xKubernetesEmbeddedResource = 39 [(json) = "x-kubernetes-embedded-resource"];
  optional bool xKubernetesIntOrString = 40 [(json) = "x-kubernetes-int-or-string"];
  repeated string xKubernetesListMapKeys = 41 [(json) = "x-kubernetes-list-map-keys"];
  optional string xKubernetesListType = 42 [(json) = "x-kubernetes-list-type", (keep_zero) = true];
  optional string xKubernetesMapType = 43 [(json) = "x-kubernetes-map-type", (keep_zero) = true];
  repeated ValidationRule xKubernetesValidations = 44 [(json) = "x-kubernetes-validations"];
}
message JSONSchemaPropsOrArray {
  optional JSONSchemaProps schema = 1;
  repeated JSONSchemaProps jSONSchemas = 2;
}
message JSONSchemaPropsOrBool {
  optional bool allows = 1;
  optional JSONSchemaProps schema = 2;
}
message JSONSchemaPropsOrStringArray {
  optional JSONSchemaProps schema = 1;
  repeated string property = 2;
}
`;
