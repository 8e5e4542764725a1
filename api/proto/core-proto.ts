// Protobuf schema of the core/v1 kinds Gatehouse serves (and the pod template that ReplicaSet and CronJob embed).
// Field numbers and types follow upstream core/v1 generated.proto; names are the JSON keys. See meta-proto.ts for the
// field options. The pod template carries the fields Gatehouse models plus the common scalar ones; pod fields beyond
// those (volumes, probes, affinity, security contexts...) have no protobuf form here and are dropped from protobuf
// bodies and answers (JSON keeps them).
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

message PodTemplateSpec {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional PodSpec spec = 2;
}
message PodSpec {
  repeated Container initContainers = 20;
  repeated Container containers = 2;
  optional string restartPolicy = 3;
  optional int64 terminationGracePeriodSeconds = 4 [(keep_zero) = true];
  optional int64 activeDeadlineSeconds = 5 [(keep_zero) = true];
  optional string dnsPolicy = 6;
  map<string, string> nodeSelector = 7;
  optional string serviceAccountName = 8;
  optional string serviceAccount = 9;
  optional bool automountServiceAccountToken = 21 [(keep_zero) = true];
  optional string nodeName = 10;
  optional bool hostNetwork = 11;
  optional bool hostPID = 12;
  optional bool hostIPC = 13;
  optional bool shareProcessNamespace = 27 [(keep_zero) = true];
  repeated LocalObjectReference imagePullSecrets = 15;
  optional string hostname = 16;
  optional string subdomain = 17;
  optional string schedulerName = 19;
  repeated Toleration tolerations = 22;
  optional string priorityClassName = 24;
  optional int32 priority = 25 [(keep_zero) = true];
  optional string runtimeClassName = 29 [(keep_zero) = true];
  optional bool enableServiceLinks = 30 [(keep_zero) = true];
  optional string preemptionPolicy = 31 [(keep_zero) = true];
  map<string, gatehouse.meta.Quantity> overhead = 32;
  optional bool setHostnameAsFQDN = 35 [(keep_zero) = true];
  optional bool hostUsers = 37 [(keep_zero) = true];
}
message Container {
  optional string name = 1 [(keep_zero) = true];
  optional string image = 2;
  repeated string command = 3;
  repeated string args = 4;
  optional string workingDir = 5;
  repeated ContainerPort ports = 6;
  repeated EnvVar env = 7;
  optional ResourceRequirements resources = 8;
  optional string restartPolicy = 24 [(keep_zero) = true];
  optional string terminationMessagePath = 13;
  optional string terminationMessagePolicy = 20;
  optional string imagePullPolicy = 14;
  optional bool stdin = 16;
  optional bool stdinOnce = 17;
  optional bool tty = 18;
}
message ContainerPort {
  optional string name = 1;
  optional int32 hostPort = 2;
  optional int32 containerPort = 3 [(keep_zero) = true];
  optional string protocol = 4;
  optional string hostIP = 5;
}
message EnvVar {
  optional string name = 1 [(keep_zero) = true];
  optional string value = 2;
  optional EnvVarSource valueFrom = 3;
}
message EnvVarSource {
  optional ObjectFieldSelector fieldRef = 1;
  optional ConfigMapKeySelector configMapKeyRef = 3;
  optional SecretKeySelector secretKeyRef = 4;
}
message ObjectFieldSelector {
  optional string apiVersion = 1;
  optional string fieldPath = 2 [(keep_zero) = true];
}
message ConfigMapKeySelector {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  optional string key = 2 [(keep_zero) = true];
  optional bool optional = 3 [(keep_zero) = true];
}
message SecretKeySelector {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  optional string key = 2 [(keep_zero) = true];
  optional bool optional = 3 [(keep_zero) = true];
}
message ResourceRequirements {
  map<string, gatehouse.meta.Quantity> limits = 1;
  map<string, gatehouse.meta.Quantity> requests = 2;
}
message Toleration {
  optional string key = 1;
  optional string operator = 2;
  optional string value = 3;
  optional string effect = 4;
  optional int64 tolerationSeconds = 5 [(keep_zero) = true];
}
`;
