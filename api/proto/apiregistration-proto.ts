// Protobuf schema of apiregistration/v1 APIService, with the field numbers of kube-aggregator's generated.proto
// (6 is unused there: the removed `priority`). Names are the JSON keys; see meta-proto.ts for the field options.
export const APIREGISTRATION_PROTO = `
syntax = "proto2";
package gatehouse.apiregistration;
message APIService {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional APIServiceSpec spec = 2;
  optional APIServiceStatus status = 3;
}
message APIServiceList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated APIService items = 2;
}
message APIServiceSpec {
  optional ServiceReference service = 1;
  optional string group = 2;
  optional string version = 3;
  optional bool insecureSkipTLSVerify = 4;
  optional bytes caBundle = 5;
  optional int32 groupPriorityMinimum = 7 [(keep_zero) = true];
  optional int32 versionPriority = 8 [(keep_zero) = true];
}
message ServiceReference {
  optional string namespace = 1;
  optional string name = 2;
  optional int32 port = 3;
}
message APIServiceStatus {
  repeated APIServiceCondition conditions = 1;
}
message APIServiceCondition {
  optional string type = 1 [(keep_zero) = true];
  optional string status = 2 [(keep_zero) = true];
  optional gatehouse.meta.Time lastTransitionTime = 3;
  optional string reason = 4;
  optional string message = 5;
}
`;
