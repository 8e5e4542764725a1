// Protobuf schema of the named-group kinds: apps/v1 ReplicaSet, events/v1 Event, batch/v1 CronJob, networking/v1 NetworkPolicy, the
// rbac/v1 kinds and the authentication/v1 and authorization/v1 review kinds. Field numbers and types follow the
// upstream generated.proto of each group; names are the JSON keys. See meta-proto.ts for the field options.
export const APPS_PROTO = `
syntax = "proto2";

package gatehouse.apps;
message ReplicaSet {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional ReplicaSetSpec spec = 2;
  optional ReplicaSetStatus status = 3;
}
message ReplicaSetList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated ReplicaSet items = 2;
}
message ReplicaSetSpec {
  optional int32 replicas = 1 [(keep_zero) = true];
  optional int32 minReadySeconds = 4;
  optional gatehouse.meta.LabelSelector selector = 2;
  optional gatehouse.core.PodTemplateSpec template = 3;
}
message ReplicaSetStatus {
  optional int32 replicas = 1 [(keep_zero) = true];
  optional int32 fullyLabeledReplicas = 2;
  optional int32 readyReplicas = 4;
  optional int32 availableReplicas = 5;
  optional int64 observedGeneration = 3;
  repeated ReplicaSetCondition conditions = 6;
}
message ReplicaSetCondition {
  optional string type = 1 [(keep_zero) = true];
  optional string status = 2 [(keep_zero) = true];
  optional gatehouse.meta.Time lastTransitionTime = 3;
  optional string reason = 4;
  optional string message = 5;
}
`;

// autoscaling/v1 Scale: the `scale` subresource's kind (k8s.io/api/autoscaling/v1 generated.proto).
export const AUTOSCALING_PROTO = `
syntax = "proto2";
package gatehouse.autoscaling;
message Scale {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional ScaleSpec spec = 2;
  optional ScaleStatus status = 3;
}
message ScaleSpec {
  optional int32 replicas = 1;
}
message ScaleStatus {
  optional int32 replicas = 1 [(keep_zero) = true];
  optional string selector = 2;
}
`;

export const EVENTS_PROTO = `
syntax = "proto2";

package gatehouse.events;
message Event {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional gatehouse.meta.MicroTime eventTime = 2;
  optional EventSeries series = 3;
  optional string reportingController = 4;
  optional string reportingInstance = 5;
  optional string action = 6;
  optional string reason = 7;
  optional gatehouse.core.ObjectReference regarding = 8;
  optional gatehouse.core.ObjectReference related = 9;
  optional string note = 10;
  optional string type = 11;
  optional gatehouse.core.EventSource deprecatedSource = 12;
  optional gatehouse.meta.Time deprecatedFirstTimestamp = 13;
  optional gatehouse.meta.Time deprecatedLastTimestamp = 14;
  optional int32 deprecatedCount = 15;
}
message EventList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated Event items = 2;
}
message EventSeries {
  optional int32 count = 1 [(keep_zero) = true];
  optional gatehouse.meta.MicroTime lastObservedTime = 2;
}
`;

export const BATCH_PROTO = `
syntax = "proto2";
package gatehouse.batch;
message CronJob {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional CronJobSpec spec = 2;
  optional CronJobStatus status = 3;
}
message CronJobList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated CronJob items = 2;
}
message CronJobSpec {
  optional string schedule = 1 [(keep_zero) = true];
  optional string timeZone = 8 [(keep_zero) = true];
  optional int64 startingDeadlineSeconds = 2 [(keep_zero) = true];
  optional string concurrencyPolicy = 3;
  optional bool suspend = 4 [(keep_zero) = true];
  optional JobTemplateSpec jobTemplate = 5;
  optional int32 successfulJobsHistoryLimit = 6 [(keep_zero) = true];
  optional int32 failedJobsHistoryLimit = 7 [(keep_zero) = true];
}
message CronJobStatus {
  repeated gatehouse.core.ObjectReference active = 1;
  optional gatehouse.meta.Time lastScheduleTime = 4;
  optional gatehouse.meta.Time lastSuccessfulTime = 5;
}
message JobTemplateSpec {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional JobSpec spec = 2;
}
// The job spec's scalar fields, selector and pod template (podFailurePolicy and successPolicy have no protobuf form here).
message JobSpec {
  optional int32 parallelism = 1 [(keep_zero) = true];
  optional int32 completions = 2 [(keep_zero) = true];
  optional int64 activeDeadlineSeconds = 3 [(keep_zero) = true];
  optional int32 backoffLimit = 7 [(keep_zero) = true];
  optional int32 backoffLimitPerIndex = 12 [(keep_zero) = true];
  optional int32 maxFailedIndexes = 13 [(keep_zero) = true];
  optional gatehouse.meta.LabelSelector selector = 4;
  optional bool manualSelector = 5 [(keep_zero) = true];
  optional gatehouse.core.PodTemplateSpec template = 6;
  optional int32 ttlSecondsAfterFinished = 8 [(keep_zero) = true];
  optional string completionMode = 9 [(keep_zero) = true];
  optional bool suspend = 10 [(keep_zero) = true];
  optional string podReplacementPolicy = 14 [(keep_zero) = true];
  optional string managedBy = 15 [(keep_zero) = true];
}
`;

export const NETWORKING_PROTO = `
syntax = "proto2";
package gatehouse.networking;
message NetworkPolicy {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional NetworkPolicySpec spec = 2;
}
message NetworkPolicyList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated NetworkPolicy items = 2;
}
message NetworkPolicySpec {
  optional gatehouse.meta.LabelSelector podSelector = 1;
  repeated NetworkPolicyIngressRule ingress = 2;
  repeated NetworkPolicyEgressRule egress = 3;
  repeated string policyTypes = 4;
}
message NetworkPolicyIngressRule {
  repeated NetworkPolicyPort ports = 1;
  repeated NetworkPolicyPeer from = 2;
}
message NetworkPolicyEgressRule {
  repeated NetworkPolicyPort ports = 1;
  repeated NetworkPolicyPeer to = 2;
}
message NetworkPolicyPort {
  optional string protocol = 1 [(keep_zero) = true];
  optional gatehouse.meta.IntOrString port = 2;
  optional int32 endPort = 3 [(keep_zero) = true];
}
message NetworkPolicyPeer {
  optional gatehouse.meta.LabelSelector podSelector = 1;
  optional gatehouse.meta.LabelSelector namespaceSelector = 2;
  optional IPBlock ipBlock = 3;
}
message IPBlock {
  optional string cidr = 1 [(keep_zero) = true];
  repeated string except = 2;
}
`;

export const RBAC_PROTO = `
syntax = "proto2";
package gatehouse.rbac;
message Role {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2;
}
message RoleList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated Role items = 2;
}
message ClusterRole {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2;
  optional AggregationRule aggregationRule = 3;
}
message ClusterRoleList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated ClusterRole items = 2;
}
message AggregationRule {
  repeated gatehouse.meta.LabelSelector clusterRoleSelectors = 1;
}
message PolicyRule {
  repeated string verbs = 1;
  repeated string apiGroups = 2;
  repeated string resources = 3;
  repeated string resourceNames = 4;
  repeated string nonResourceURLs = 5;
}
message RoleBinding {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  repeated Subject subjects = 2;
  optional RoleRef roleRef = 3;
}
message RoleBindingList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated RoleBinding items = 2;
}
message ClusterRoleBinding {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  repeated Subject subjects = 2;
  optional RoleRef roleRef = 3;
}
message ClusterRoleBindingList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated ClusterRoleBinding items = 2;
}
message Subject {
  optional string kind = 1 [(keep_zero) = true];
  optional string apiGroup = 2;
  optional string name = 3 [(keep_zero) = true];
  optional string namespace = 4;
}
message RoleRef {
  optional string apiGroup = 1 [(keep_zero) = true];
  optional string kind = 2 [(keep_zero) = true];
  optional string name = 3 [(keep_zero) = true];
}
`;

export const AUTHENTICATION_PROTO = `
syntax = "proto2";
package gatehouse.authentication;
message SelfSubjectReview {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional SelfSubjectReviewStatus status = 2;
}
message SelfSubjectReviewStatus {
  optional UserInfo userInfo = 1;
}
message UserInfo {
  optional string username = 1;
  optional string uid = 2;
  repeated string groups = 3;
  map<string, gatehouse.meta.ExtraValue> extra = 4;
}
message TokenRequest {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional TokenRequestSpec spec = 2;
  optional TokenRequestStatus status = 3;
}
message TokenRequestSpec {
  repeated string audiences = 1;
  optional int64 expirationSeconds = 4 [(keep_zero) = true];
  optional BoundObjectReference boundObjectRef = 3;
}
message BoundObjectReference {
  optional string kind = 1;
  optional string apiVersion = 2;
  optional string name = 3;
  optional string uid = 4;
}
message TokenRequestStatus {
  optional string token = 1 [(keep_zero) = true];
  optional gatehouse.meta.Time expirationTimestamp = 2;
}
message TokenReview {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional TokenReviewSpec spec = 2;
  optional TokenReviewStatus status = 3;
}
message TokenReviewSpec {
  optional string token = 1;
  repeated string audiences = 2;
}
message TokenReviewStatus {
  optional bool authenticated = 1;
  optional UserInfo user = 2;
  repeated string audiences = 4;
  optional string error = 3;
}
`;

export const AUTHORIZATION_PROTO = `
syntax = "proto2";
package gatehouse.authorization;
message SubjectAccessReview {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional SubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}
message LocalSubjectAccessReview {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional SubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}
message SelfSubjectAccessReview {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional SelfSubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}
message SubjectAccessReviewSpec {
  optional ResourceAttributes resourceAttributes = 1;
  optional NonResourceAttributes nonResourceAttributes = 2;
  optional string user = 3;
  repeated string groups = 4;
  map<string, gatehouse.meta.ExtraValue> extra = 5;
  optional string uid = 6;
}
message SelfSubjectAccessReviewSpec {
  optional ResourceAttributes resourceAttributes = 1;
  optional NonResourceAttributes nonResourceAttributes = 2;
}
message ResourceAttributes {
  optional string namespace = 1;
  optional string verb = 2;
  optional string group = 3;
  optional string version = 4;
  optional string resource = 5;
  optional string subresource = 6;
  optional string name = 7;
  optional FieldSelectorAttributes fieldSelector = 8;
  optional LabelSelectorAttributes labelSelector = 9;
}
message FieldSelectorAttributes {
  optional string rawSelector = 1;
  repeated gatehouse.meta.FieldSelectorRequirement requirements = 2;
}
message LabelSelectorAttributes {
  optional string rawSelector = 1;
  repeated gatehouse.meta.LabelSelectorRequirement requirements = 2;
}
message NonResourceAttributes {
  optional string path = 1;
  optional string verb = 2;
}
message SubjectAccessReviewStatus {
  optional bool allowed = 1 [(keep_zero) = true];
  optional bool denied = 4;
  optional string reason = 2;
  optional string evaluationError = 3;
}
message SelfSubjectRulesReview {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional SelfSubjectRulesReviewSpec spec = 2;
  optional SubjectRulesReviewStatus status = 3;
}
message SelfSubjectRulesReviewSpec {
  optional string namespace = 1;
}
message SubjectRulesReviewStatus {
  repeated ResourceRule resourceRules = 1;
  repeated NonResourceRule nonResourceRules = 2;
  optional bool incomplete = 3 [(keep_zero) = true];
  optional string evaluationError = 4;
}
message ResourceRule {
  repeated string verbs = 1;
  repeated string apiGroups = 2;
  repeated string resources = 3;
  repeated string resourceNames = 4;
}
message NonResourceRule {
  repeated string verbs = 1;
  repeated string nonResourceURLs = 2;
}
`;
