// Protobuf schema of admissionregistration/v1: the webhook configurations, ValidatingAdmissionPolicy and its binding,
// with the field numbers of k8s.io/api/admissionregistration/v1/generated.proto (5 and 6 of MatchResources are unused
// there; the two webhook types number objectSelector and matchConditions differently). The Go types embed
// Rule in RuleWithOperations and that in NamedRuleWithOperations; JSON flattens them, hence (inline).
/**
 * How a webhook is reached: admissionregistration and apiextensions each declare these two messages in their own
 * package upstream, with the same fields and numbers.
 */
export const WEBHOOK_CLIENT_CONFIG_MESSAGES = `message WebhookClientConfig {
  optional ServiceReference service = 1;
  optional bytes caBundle = 2;
  optional string url = 3;
}
message ServiceReference {
  optional string namespace = 1 [(keep_zero) = true];
  optional string name = 2 [(keep_zero) = true];
  optional string path = 3;
  optional int32 port = 4;
}
`;

export const ADMISSIONREGISTRATION_PROTO = `
syntax = "proto2";
package gatehouse.admissionregistration;
message ValidatingAdmissionPolicy {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional ValidatingAdmissionPolicySpec spec = 2;
  optional ValidatingAdmissionPolicyStatus status = 3;
}
message ValidatingAdmissionPolicyList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated ValidatingAdmissionPolicy items = 2;
}
message ValidatingAdmissionPolicySpec {
  optional ParamKind paramKind = 1;
  optional MatchResources matchConstraints = 2;
  repeated Validation validations = 3;
  optional string failurePolicy = 4;
  repeated AuditAnnotation auditAnnotations = 5;
  repeated MatchCondition matchConditions = 6;
  repeated Variable variables = 7;
}
message ParamKind {
  optional string apiVersion = 1;
  optional string kind = 2;
}
message MatchResources {
  optional gatehouse.meta.LabelSelector namespaceSelector = 1;
  optional gatehouse.meta.LabelSelector objectSelector = 2;
  repeated NamedRuleWithOperations resourceRules = 3;
  repeated NamedRuleWithOperations excludeResourceRules = 4;
  optional string matchPolicy = 7;
}
message NamedRuleWithOperations {
  repeated string resourceNames = 1;
  optional RuleWithOperations ruleWithOperations = 2 [(inline) = true];
}
message RuleWithOperations {
  repeated string operations = 1;
  optional Rule rule = 2 [(inline) = true];
}
message Rule {
  repeated string apiGroups = 1;
  repeated string apiVersions = 2;
  repeated string resources = 3;
  optional string scope = 4;
}
message Validation {
  optional string expression = 1 [(keep_zero) = true];
  optional string message = 2;
  optional string reason = 3;
  optional string messageExpression = 4;
}
message AuditAnnotation {
  optional string key = 1 [(keep_zero) = true];
  optional string valueExpression = 2 [(keep_zero) = true];
}
message MatchCondition {
  optional string name = 1 [(keep_zero) = true];
  optional string expression = 2 [(keep_zero) = true];
}
message Variable {
  optional string name = 1 [(keep_zero) = true];
  optional string expression = 2 [(keep_zero) = true];
}
message ValidatingAdmissionPolicyStatus {
  optional int64 observedGeneration = 1;
  optional TypeChecking typeChecking = 2;
  repeated Condition conditions = 3;
}
message TypeChecking {
  repeated ExpressionWarning expressionWarnings = 1;
}
message ExpressionWarning {
  optional string fieldRef = 2 [(keep_zero) = true];
  optional string warning = 3 [(keep_zero) = true];
}
message Condition {
  optional string type = 1 [(keep_zero) = true];
  optional string status = 2 [(keep_zero) = true];
  optional int64 observedGeneration = 3;
  optional gatehouse.meta.Time lastTransitionTime = 4;
  optional string reason = 5 [(keep_zero) = true];
  optional string message = 6 [(keep_zero) = true];
}
message ValidatingAdmissionPolicyBinding {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  optional ValidatingAdmissionPolicyBindingSpec spec = 2;
}
message ValidatingAdmissionPolicyBindingList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated ValidatingAdmissionPolicyBinding items = 2;
}
message ValidatingAdmissionPolicyBindingSpec {
  optional string policyName = 1;
  optional ParamRef paramRef = 2;
  optional MatchResources matchResources = 3;
  repeated string validationActions = 4;
}
message ParamRef {
  optional string name = 1;
  optional string namespace = 2;
  optional gatehouse.meta.LabelSelector selector = 3;
  optional string parameterNotFoundAction = 4;
}
message ValidatingWebhookConfiguration {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  repeated ValidatingWebhook webhooks = 2;
}
message ValidatingWebhookConfigurationList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated ValidatingWebhookConfiguration items = 2;
}
message ValidatingWebhook {
  optional string name = 1 [(keep_zero) = true];
  optional WebhookClientConfig clientConfig = 2;
  repeated RuleWithOperations rules = 3;
  optional string failurePolicy = 4;
  optional gatehouse.meta.LabelSelector namespaceSelector = 5;
  optional string sideEffects = 6;
  optional int32 timeoutSeconds = 7;
  repeated string admissionReviewVersions = 8;
  optional string matchPolicy = 9;
  optional gatehouse.meta.LabelSelector objectSelector = 10;
  repeated MatchCondition matchConditions = 11;
}
message MutatingWebhookConfiguration {
  optional gatehouse.meta.ObjectMeta metadata = 1;
  repeated MutatingWebhook webhooks = 2;
}
message MutatingWebhookConfigurationList {
  optional gatehouse.meta.ListMeta metadata = 1;
  repeated MutatingWebhookConfiguration items = 2;
}
message MutatingWebhook {
  optional string name = 1 [(keep_zero) = true];
  optional WebhookClientConfig clientConfig = 2;
  repeated RuleWithOperations rules = 3;
  optional string failurePolicy = 4;
  optional gatehouse.meta.LabelSelector namespaceSelector = 5;
  optional string sideEffects = 6;
  optional int32 timeoutSeconds = 7;
  repeated string admissionReviewVersions = 8;
  optional string matchPolicy = 9;
  optional string reinvocationPolicy = 10;
  optional gatehouse.meta.LabelSelector objectSelector = 11;
  repeated MatchCondition matchConditions = 12;
}
${WEBHOOK_CLIENT_CONFIG_MESSAGES}`;
