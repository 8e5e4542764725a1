// Protobuf schema of the pod template that ReplicaSet and CronJob embed (core/v1 messages; upstream field numbers, names
// are the JSON keys; field options as in meta-proto.ts). It carries the fields Gatehouse models plus the ones manifests
// commonly use (volumes of the common sources, mounts, probes, lifecycle hooks, security contexts, affinity, spread
// constraints); the rest (cloud-disk, projected and downward-API volume sources, ephemeral containers, resource
// claims...) has no protobuf form here and is dropped from protobuf bodies and answers (JSON keeps it).
export const POD_PROTO = `
syntax = "proto2";
package gatehouse.core;

message PodTemplateSpec {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional PodSpec spec = 2;
}
message PodSpec {
  repeated Volume volumes = 1;
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
  optional PodSecurityContext securityContext = 14;
  repeated LocalObjectReference imagePullSecrets = 15;
  optional string hostname = 16;
  optional string subdomain = 17;
  optional Affinity affinity = 18;
  optional string schedulerName = 19;
  repeated Toleration tolerations = 22;
  repeated HostAlias hostAliases = 23;
  optional string priorityClassName = 24;
  optional int32 priority = 25 [(keep_zero) = true];
  optional PodDNSConfig dnsConfig = 26;
  repeated PodReadinessGate readinessGates = 28;
  optional string runtimeClassName = 29 [(keep_zero) = true];
  optional bool enableServiceLinks = 30 [(keep_zero) = true];
  optional string preemptionPolicy = 31 [(keep_zero) = true];
  map<string, gatehouse.meta.Quantity> overhead = 32;
  repeated TopologySpreadConstraint topologySpreadConstraints = 33;
  optional bool setHostnameAsFQDN = 35 [(keep_zero) = true];
  optional PodOS os = 36;
  optional bool hostUsers = 37 [(keep_zero) = true];
  repeated PodSchedulingGate schedulingGates = 38;
}
message Volume {
  optional string name = 1 [(keep_zero) = true];
  optional VolumeSource volumeSource = 2 [(inline) = true];
}
message VolumeSource {
  optional HostPathVolumeSource hostPath = 1;
  optional EmptyDirVolumeSource emptyDir = 2;
  optional SecretVolumeSource secret = 6;
  optional PersistentVolumeClaimVolumeSource persistentVolumeClaim = 10;
  optional ConfigMapVolumeSource configMap = 19;
}
message HostPathVolumeSource {
  optional string path = 1 [(keep_zero) = true];
  optional string type = 2 [(keep_zero) = true];
}
message EmptyDirVolumeSource {
  optional string medium = 1;
  optional gatehouse.meta.Quantity sizeLimit = 2;
}
message SecretVolumeSource {
  optional string secretName = 1;
  repeated KeyToPath items = 2;
  optional int32 defaultMode = 3 [(keep_zero) = true];
  optional bool optional = 4 [(keep_zero) = true];
}
message ConfigMapVolumeSource {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  repeated KeyToPath items = 2;
  optional int32 defaultMode = 3 [(keep_zero) = true];
  optional bool optional = 4 [(keep_zero) = true];
}
message KeyToPath {
  optional string key = 1 [(keep_zero) = true];
  optional string path = 2 [(keep_zero) = true];
  optional int32 mode = 3 [(keep_zero) = true];
}
message PersistentVolumeClaimVolumeSource {
  optional string claimName = 1 [(keep_zero) = true];
  optional bool readOnly = 2;
}
message PodSecurityContext {
  optional SELinuxOptions seLinuxOptions = 1;
  optional int64 runAsUser = 2 [(keep_zero) = true];
  optional int64 runAsGroup = 6 [(keep_zero) = true];
  optional bool runAsNonRoot = 3 [(keep_zero) = true];
  repeated int64 supplementalGroups = 4;
  optional string supplementalGroupsPolicy = 12 [(keep_zero) = true];
  optional int64 fsGroup = 5 [(keep_zero) = true];
  repeated Sysctl sysctls = 7;
  optional string fsGroupChangePolicy = 9 [(keep_zero) = true];
  optional SeccompProfile seccompProfile = 10;
  optional AppArmorProfile appArmorProfile = 11;
  optional string seLinuxChangePolicy = 13 [(keep_zero) = true];
}
message SecurityContext {
  optional Capabilities capabilities = 1;
  optional bool privileged = 2 [(keep_zero) = true];
  optional SELinuxOptions seLinuxOptions = 3;
  optional int64 runAsUser = 4 [(keep_zero) = true];
  optional int64 runAsGroup = 8 [(keep_zero) = true];
  optional bool runAsNonRoot = 5 [(keep_zero) = true];
  optional bool readOnlyRootFilesystem = 6 [(keep_zero) = true];
  optional bool allowPrivilegeEscalation = 7 [(keep_zero) = true];
  optional string procMount = 9 [(keep_zero) = true];
  optional SeccompProfile seccompProfile = 11;
  optional AppArmorProfile appArmorProfile = 12;
}
message Capabilities {
  repeated string add = 1;
  repeated string drop = 2;
}
message SELinuxOptions {
  optional string user = 1;
  optional string role = 2;
  optional string type = 3;
  optional string level = 4;
}
message SeccompProfile {
  optional string type = 1 [(keep_zero) = true];
  optional string localhostProfile = 2 [(keep_zero) = true];
}
message AppArmorProfile {
  optional string type = 1 [(keep_zero) = true];
  optional string localhostProfile = 2 [(keep_zero) = true];
}
message Sysctl {
  optional string name = 1 [(keep_zero) = true];
  optional string value = 2 [(keep_zero) = true];
}
message Affinity {
  optional NodeAffinity nodeAffinity = 1;
  optional PodAffinity podAffinity = 2;
  optional PodAntiAffinity podAntiAffinity = 3;
}
message NodeAffinity {
  optional NodeSelector requiredDuringSchedulingIgnoredDuringExecution = 1;
  repeated PreferredSchedulingTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}
message NodeSelector {
  repeated NodeSelectorTerm nodeSelectorTerms = 1;
}
message NodeSelectorTerm {
  repeated NodeSelectorRequirement matchExpressions = 1;
  repeated NodeSelectorRequirement matchFields = 2;
}
message NodeSelectorRequirement {
  optional string key = 1 [(keep_zero) = true];
  optional string operator = 2 [(keep_zero) = true];
  repeated string values = 3;
}
message PreferredSchedulingTerm {
  optional int32 weight = 1 [(keep_zero) = true];
  optional NodeSelectorTerm preference = 2;
}
message PodAffinity {
  repeated PodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution = 1;
  repeated WeightedPodAffinityTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}
message PodAntiAffinity {
  repeated PodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution = 1;
  repeated WeightedPodAffinityTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}
message PodAffinityTerm {
  optional gatehouse.meta.LabelSelector labelSelector = 1;
  repeated string namespaces = 2;
  optional string topologyKey = 3 [(keep_zero) = true];
  optional gatehouse.meta.LabelSelector namespaceSelector = 4;
  repeated string matchLabelKeys = 5;
  repeated string mismatchLabelKeys = 6;
}
message WeightedPodAffinityTerm {
  optional int32 weight = 1 [(keep_zero) = true];
  optional PodAffinityTerm podAffinityTerm = 2;
}
message TopologySpreadConstraint {
  optional int32 maxSkew = 1 [(keep_zero) = true];
  optional string topologyKey = 2 [(keep_zero) = true];
  optional string whenUnsatisfiable = 3 [(keep_zero) = true];
  optional gatehouse.meta.LabelSelector labelSelector = 4;
  optional int32 minDomains = 5 [(keep_zero) = true];
  optional string nodeAffinityPolicy = 6 [(keep_zero) = true];
  optional string nodeTaintsPolicy = 7 [(keep_zero) = true];
  repeated string matchLabelKeys = 8;
}
message HostAlias {
  optional string ip = 1 [(keep_zero) = true];
  repeated string hostnames = 2;
}
message PodDNSConfig {
  repeated string nameservers = 1;
  repeated string searches = 2;
  repeated PodDNSConfigOption options = 3;
}
message PodDNSConfigOption {
  optional string name = 1;
  optional string value = 2 [(keep_zero) = true];
}
message PodReadinessGate {
  optional string conditionType = 1 [(keep_zero) = true];
}
message PodOS {
  optional string name = 1 [(keep_zero) = true];
}
message PodSchedulingGate {
  optional string name = 1 [(keep_zero) = true];
}
message Container {
  optional string name = 1 [(keep_zero) = true];
  optional string image = 2;
  repeated string command = 3;
  repeated string args = 4;
  optional string workingDir = 5;
  repeated ContainerPort ports = 6;
  repeated EnvFromSource envFrom = 19;
  repeated EnvVar env = 7;
  optional ResourceRequirements resources = 8;
  optional string restartPolicy = 24 [(keep_zero) = true];
  repeated VolumeMount volumeMounts = 9;
  optional Probe livenessProbe = 10;
  optional Probe readinessProbe = 11;
  optional Probe startupProbe = 22;
  optional Lifecycle lifecycle = 12;
  optional string terminationMessagePath = 13;
  optional string terminationMessagePolicy = 20;
  optional string imagePullPolicy = 14;
  optional SecurityContext securityContext = 15;
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
  optional ResourceFieldSelector resourceFieldRef = 2;
  optional ConfigMapKeySelector configMapKeyRef = 3;
  optional SecretKeySelector secretKeyRef = 4;
}
message ObjectFieldSelector {
  optional string apiVersion = 1;
  optional string fieldPath = 2 [(keep_zero) = true];
}
message ResourceFieldSelector {
  optional string containerName = 1;
  optional string resource = 2 [(keep_zero) = true];
  optional gatehouse.meta.Quantity divisor = 3;
}
message EnvFromSource {
  optional string prefix = 1;
  optional ConfigMapEnvSource configMapRef = 2;
  optional SecretEnvSource secretRef = 3;
}
message ConfigMapEnvSource {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  optional bool optional = 2 [(keep_zero) = true];
}
message SecretEnvSource {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  optional bool optional = 2 [(keep_zero) = true];
}
message VolumeMount {
  optional string name = 1 [(keep_zero) = true];
  optional bool readOnly = 2;
  optional string recursiveReadOnly = 7 [(keep_zero) = true];
  optional string mountPath = 3 [(keep_zero) = true];
  optional string subPath = 4;
  optional string mountPropagation = 5 [(keep_zero) = true];
  optional string subPathExpr = 6;
}
message Probe {
  optional ProbeHandler handler = 1 [(inline) = true];
  optional int32 initialDelaySeconds = 2;
  optional int32 timeoutSeconds = 3;
  optional int32 periodSeconds = 4;
  optional int32 successThreshold = 5;
  optional int32 failureThreshold = 6;
  optional int64 terminationGracePeriodSeconds = 7 [(keep_zero) = true];
}
message ProbeHandler {
  optional ExecAction exec = 1;
  optional HTTPGetAction httpGet = 2;
  optional TCPSocketAction tcpSocket = 3;
  optional GRPCAction grpc = 4;
}
message Lifecycle {
  optional LifecycleHandler postStart = 1;
  optional LifecycleHandler preStop = 2;
}
message LifecycleHandler {
  optional ExecAction exec = 1;
  optional HTTPGetAction httpGet = 2;
  optional TCPSocketAction tcpSocket = 3;
  optional SleepAction sleep = 4;
}
message ExecAction {
  repeated string command = 1;
}
message HTTPGetAction {
  optional string path = 1;
  optional gatehouse.meta.IntOrString port = 2;
  optional string host = 3;
  optional string scheme = 4;
  repeated HTTPHeader httpHeaders = 5;
}
message HTTPHeader {
  optional string name = 1 [(keep_zero) = true];
  optional string value = 2 [(keep_zero) = true];
}
message TCPSocketAction {
  optional gatehouse.meta.IntOrString port = 1;
  optional string host = 2;
}
message GRPCAction {
  optional int32 port = 1 [(keep_zero) = true];
  optional string service = 2 [(keep_zero) = true];
}
message SleepAction {
  optional int64 seconds = 1 [(keep_zero) = true];
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
