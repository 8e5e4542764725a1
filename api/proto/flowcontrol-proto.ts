// Protobuf schema of flowcontrol/v1 FlowSchema and PriorityLevelConfiguration, with the field numbers of
// k8s.io/api/flowcontrol/v1/generated.proto (NonResourcePolicyRule's URLs are 6 there). The v1 pointer fields
// (shares and percents) keep an explicit 0 on the wire, which is how an explicit 0 survives protobuf clients.
export const FLOWCONTROL_PROTO = `
syntax = "proto2";
package gatehouse.flowcontrol;
message FlowSchema {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional FlowSchemaSpec spec = 2;
  optional FlowSchemaStatus status = 3;
}
message FlowSchemaList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated FlowSchema items = 2;
}
message FlowSchemaSpec {
  optional PriorityLevelConfigurationReference priorityLevelConfiguration = 1;
  optional int32 matchingPrecedence = 2;
  optional FlowDistinguisherMethod distinguisherMethod = 3;
  repeated PolicyRulesWithSubjects rules = 4;
}
message PriorityLevelConfigurationReference {
  optional string name = 1 [(keep_zero) = true];
}
message FlowDistinguisherMethod {
  optional string type = 1 [(keep_zero) = true];
}
message PolicyRulesWithSubjects {
  repeated Subject subjects = 1;
  repeated ResourcePolicyRule resourceRules = 2;
  repeated NonResourcePolicyRule nonResourceRules = 3;
}
message Subject {
  optional string kind = 1 [(keep_zero) = true];
  optional UserSubject user = 2;
  optional GroupSubject group = 3;
  optional ServiceAccountSubject serviceAccount = 4;
}
message UserSubject {
  optional string name = 1 [(keep_zero) = true];
}
message GroupSubject {
  optional string name = 1 [(keep_zero) = true];
}
message ServiceAccountSubject {
  optional string namespace = 1 [(keep_zero) = true];
  optional string name = 2 [(keep_zero) = true];
}
message ResourcePolicyRule {
  repeated string verbs = 1;
  repeated string apiGroups = 2;
  repeated string resources = 3;
  optional bool clusterScope = 4;
  repeated string namespaces = 5;
}
message NonResourcePolicyRule {
  repeated string verbs = 1;
  repeated string nonResourceURLs = 6;
}
message FlowSchemaStatus {
  repeated FlowSchemaCondition conditions = 1;
}
message FlowSchemaCondition {
  optional string type = 1;
  optional string status = 2;
  optional gatehouse.meta.Time lastTransitionTime = 3;
  optional string reason = 4;
  optional string message = 5;
}
message PriorityLevelConfiguration {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional PriorityLevelConfigurationSpec spec = 2;
  optional PriorityLevelConfigurationStatus status = 3;
}
message PriorityLevelConfigurationList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated PriorityLevelConfiguration items = 2;
}
message PriorityLevelConfigurationSpec {
  optional string type = 1 [(keep_zero) = true];
  optional LimitedPriorityLevelConfiguration limited = 2;
  optional ExemptPriorityLevelConfiguration exempt = 3;
}
message LimitedPriorityLevelConfiguration {
  optional int32 nominalConcurrencyShares = 1 [(keep_zero) = true];
  optional LimitResponse limitResponse = 2;
  optional int32 lendablePercent = 3 [(keep_zero) = true];
  optional int32 borrowingLimitPercent = 4 [(keep_zero) = true];
}
message ExemptPriorityLevelConfiguration {
  optional int32 nominalConcurrencyShares = 1 [(keep_zero) = true];
  optional int32 lendablePercent = 2 [(keep_zero) = true];
}
message LimitResponse {
  optional string type = 1 [(keep_zero) = true];
  optional QueuingConfiguration queuing = 2;
}
message QueuingConfiguration {
  optional int32 queues = 1;
  optional int32 handSize = 2;
  optional int32 queueLengthLimit = 3;
}
message PriorityLevelConfigurationStatus {
  repeated PriorityLevelConfigurationCondition conditions = 1;
}
message PriorityLevelConfigurationCondition {
  optional string type = 1;
  optional string status = 2;
  optional gatehouse.meta.Time lastTransitionTime = 3;
  optional string reason = 4;
  optional string message = 5;
}
`;
