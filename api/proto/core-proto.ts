// Protobuf schema of the core/v1 kinds Gatehouse serves (and the pod template that ReplicaSet and CronJob embed).
// Field numbers and types follow upstream core/v1 generated.proto; names are the JSON keys. See meta-proto.ts for the
// field options. The pod template is in pod-proto.ts.
export const CORE_PROTO = `
syntax = "proto2";
package gatehouse.core;

message ConfigMap {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional bool immutable = 4 [(keep_zero) = true];
  map<string, string> data = 2;
  map<string, bytes> binaryData = 3;
}
message ConfigMapList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated ConfigMap items = 2;
}

message Secret {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional bool immutable = 5 [(keep_zero) = true];
  map<string, bytes> data = 2;
  map<string, string> stringData = 4;
  optional string type = 3;
}
message SecretList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated Secret items = 2;
}

message ServiceAccount {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  repeated ObjectReference secrets = 2;
  repeated LocalObjectReference imagePullSecrets = 3;
  optional bool automountServiceAccountToken = 4 [(keep_zero) = true];
}
message ServiceAccountList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated ServiceAccount items = 2;
}
message ObjectReference {
  optional string kind = 1;
  optional string namespace = 2;
  optional string name = 3;
  optional string uid = 4;
  optional string apiVersion = 5;
  optional string resourceVersion = 6;
  optional string fieldPath = 7;
}
message LocalObjectReference {
  optional string name = 1;
}

message Event {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional ObjectReference involvedObject = 2;
  optional string reason = 3;
  optional string message = 4;
  optional EventSource source = 5;
  optional gatehouse.meta.Time firstTimestamp = 6;
  optional gatehouse.meta.Time lastTimestamp = 7;
  optional int32 count = 8;
  optional string type = 9;
  optional gatehouse.meta.MicroTime eventTime = 10;
  optional EventSeries series = 11;
  optional string action = 12;
  optional ObjectReference related = 13;
  optional string reportingComponent = 14 [(keep_zero) = true];
  optional string reportingInstance = 15 [(keep_zero) = true];
}
message EventList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated Event items = 2;
}
message EventSource {
  optional string component = 1;
  optional string host = 2;
}
message EventSeries {
  optional int32 count = 1;
  optional gatehouse.meta.MicroTime lastObservedTime = 2;
}

message Namespace {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional NamespaceSpec spec = 2;
  optional NamespaceStatus status = 3;
}
message NamespaceList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated Namespace items = 2;
}
message NamespaceSpec {
  repeated string finalizers = 1;
}
message NamespaceStatus {
  optional string phase = 1;
  repeated NamespaceCondition conditions = 2;
}
message NamespaceCondition {
  optional string type = 1 [(keep_zero) = true];
  optional string status = 2 [(keep_zero) = true];
  optional gatehouse.meta.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message ResourceQuota {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional ResourceQuotaSpec spec = 2;
  optional ResourceQuotaStatus status = 3;
}
message ResourceQuotaList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated ResourceQuota items = 2;
}
message ResourceQuotaSpec {
  map<string, gatehouse.meta.Quantity> hard = 1;
  repeated string scopes = 2;
  optional ScopeSelector scopeSelector = 3;
}
message ResourceQuotaStatus {
  map<string, gatehouse.meta.Quantity> hard = 1;
  map<string, gatehouse.meta.Quantity> used = 2;
}
message ScopeSelector {
  repeated ScopedResourceSelectorRequirement matchExpressions = 1;
}
message ScopedResourceSelectorRequirement {
  optional string scopeName = 1 [(keep_zero) = true];
  optional string operator = 2 [(keep_zero) = true];
  repeated string values = 3;
}

message Node {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional NodeSpec spec = 2;
  optional NodeStatus status = 3;
}
message NodeList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated Node items = 2;
}
message NodeSpec {
  optional string podCIDR = 1;
  repeated string podCIDRs = 7;
  optional string providerID = 3;
  optional bool unschedulable = 4;
  repeated Taint taints = 5;
  optional NodeConfigSource configSource = 6;
  optional string externalID = 2;
}
message Taint {
  optional string key = 1 [(keep_zero) = true];
  optional string value = 2;
  optional string effect = 3 [(keep_zero) = true];
  optional gatehouse.meta.Time timeAdded = 4;
}
message NodeConfigSource {
  optional ConfigMapNodeConfigSource configMap = 2;
}
message ConfigMapNodeConfigSource {
  optional string namespace = 1 [(keep_zero) = true];
  optional string name = 2 [(keep_zero) = true];
  optional string uid = 3;
  optional string resourceVersion = 4;
  optional string kubeletConfigKey = 5 [(keep_zero) = true];
}
message NodeStatus {
  map<string, gatehouse.meta.Quantity> capacity = 1;
  map<string, gatehouse.meta.Quantity> allocatable = 2;
  optional string phase = 3;
  repeated NodeCondition conditions = 4;
  repeated NodeAddress addresses = 5;
  optional NodeDaemonEndpoints daemonEndpoints = 6;
  optional NodeSystemInfo nodeInfo = 7;
  repeated ContainerImage images = 8;
  repeated string volumesInUse = 9;
  repeated AttachedVolume volumesAttached = 10;
  optional NodeConfigStatus config = 11;
  repeated NodeRuntimeHandler runtimeHandlers = 12;
  optional NodeFeatures features = 13;
}
message NodeCondition {
  optional string type = 1 [(keep_zero) = true];
  optional string status = 2 [(keep_zero) = true];
  optional gatehouse.meta.Time lastHeartbeatTime = 3;
  optional gatehouse.meta.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}
message NodeAddress {
  optional string type = 1 [(keep_zero) = true];
  optional string address = 2 [(keep_zero) = true];
}
message NodeDaemonEndpoints {
  optional DaemonEndpoint kubeletEndpoint = 1;
}
message DaemonEndpoint {
  optional int32 Port = 1 [(keep_zero) = true];
}
message NodeSystemInfo {
  optional string machineID = 1 [(keep_zero) = true];
  optional string systemUUID = 2 [(keep_zero) = true];
  optional string bootID = 3 [(keep_zero) = true];
  optional string kernelVersion = 4 [(keep_zero) = true];
  optional string osImage = 5 [(keep_zero) = true];
  optional string containerRuntimeVersion = 6 [(keep_zero) = true];
  optional string kubeletVersion = 7 [(keep_zero) = true];
  optional string kubeProxyVersion = 8 [(keep_zero) = true];
  optional string operatingSystem = 9 [(keep_zero) = true];
  optional string architecture = 10 [(keep_zero) = true];
}
message ContainerImage {
  repeated string names = 1;
  optional int64 sizeBytes = 2;
}
message AttachedVolume {
  optional string name = 1 [(keep_zero) = true];
  optional string devicePath = 2 [(keep_zero) = true];
}
message NodeConfigStatus {
  optional NodeConfigSource assigned = 1;
  optional NodeConfigSource active = 2;
  optional NodeConfigSource lastKnownGood = 3;
  optional string error = 4;
}
message NodeRuntimeHandler {
  optional string name = 1 [(keep_zero) = true];
  optional NodeRuntimeHandlerFeatures features = 2;
}
message NodeRuntimeHandlerFeatures {
  optional bool recursiveReadOnlyMounts = 1 [(keep_zero) = true];
  optional bool userNamespaces = 2 [(keep_zero) = true];
}
message NodeFeatures {
  optional bool supplementalGroupsPolicy = 1 [(keep_zero) = true];
}
`;
