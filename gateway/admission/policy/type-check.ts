// Upstream's type checking of a ValidatingAdmissionPolicy: every expression is checked once per kind its
// matchConstraints name exactly, with `object` and `oldObject` typed from that kind's schema and `params` from the
// paramKind's, so a field the schema does not have or a comparison of mismatched types is found when the policy is
// written. What it finds are warnings for status.typeChecking only: evaluation keeps its untyped environment, and a
// policy is never refused or skipped because of them.
import type { KObject } from '../../../api/meta/types.js';
import type { KindDefinition } from '../../../api/scheme.js';
import { asArr, asObj, asStr, specOf } from '../../../api/common/validation-helpers.js';
import { CelCompileError, celTypesOfSchema, typeCheckCel, type CelObjectType } from '../../../policies/cel/index.js';
import { POLICY_VARIABLES } from './compile-policy.js';
import { kindsOfRules, storeOfParamKind, type MatchedKind, type Served } from './kind-resolution.js';

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

interface Expression {
  fieldRef: string;
  text: string;
  /** A variable's name. */
  name?: string;
}

/** The variable of `variables`, an object type whose fields are the policy's variables checked so far. */
const VARIABLES_TYPE = 'kubernetes.variables';

interface Declarations {
  variables: Record<string, string>;
  objectTypes: CelObjectType[];
}

function typedAs(def: KindDefinition, prefix: string) {
  return celTypesOfSchema(def.schema, `${prefix}${def.kind}`);
}

/** The declarations of one kind: object and oldObject of its type, params and namespaceObject as resolved. */
function declarationsFor(kind: MatchedKind, params: KindDefinition | null | undefined, namespace?: KindDefinition) {
  const object = typedAs(kind.def, '');
  const objectTypes = [...object.objects];
  const variables: Record<string, string> = { ...POLICY_VARIABLES, object: object.type, oldObject: object.type };
  // Without a paramKind, `params` is undeclared, as upstream: an expression reading it can only fail.
  if (params === undefined) delete variables.params;
  else if (params) {
    // The param's types get a prefix of their own: a policy over ConfigMaps with ConfigMap params needs one copy.
    const typed = params === kind.def ? object : typedAs(params, 'params.');
    if (typed !== object) objectTypes.push(...typed.objects);
    variables.params = typed.type;
  }
  if (namespace) {
    const typed = typedAs(namespace, 'namespaceObject.');
    objectTypes.push(...typed.objects);
    variables.namespaceObject = typed.type;
  }
  return { variables, objectTypes };
}

function check(text: string, decls: Declarations): { type?: string; error?: string } {
  try {
    return { type: typeCheckCel(text, decls) };
  } catch (e) {
    if (!(e instanceof CelCompileError)) throw e;
    return { error: e.message.replace(/^compilation failed: /, '') };
  }
}

function expressionsOf(spec: Record<string, unknown>): { variables: Expression[]; others: Expression[] } {
  const list = (field: string, key: string): Expression[] =>
    asArr(spec[field]).flatMap((raw, i) => {
      const text = asStr(asObj(raw)?.[key]) ?? '';
      const name = asStr(asObj(raw)?.name);
      return text.trim() === '' ? [] : [{ fieldRef: `spec.${field}[${i}].${key}`, text, name }];
    });
  const validations = asArr(spec.validations).flatMap((raw, i) => {
    const v = asObj(raw) ?? {};
    return (['expression', 'messageExpression'] as const).flatMap((key) => {
      const text = asStr(v[key]) ?? '';
      return text.trim() === '' ? [] : [{ fieldRef: `spec.validations[${i}].${key}`, text }];
    });
  });
  return {
    variables: list('variables', 'expression'),
    others: [...list('matchConditions', 'expression'), ...validations, ...list('auditAnnotations', 'valueExpression')],
  };
}

/** The warnings of every expression of a policy, in upstream's form; empty when nothing resolves or all is well. */
export function typeCheckPolicy(policy: KObject, stores: readonly Served[]): ExpressionWarning[] {
  const spec = specOf(policy);
  const kinds = kindsOfRules(stores, spec.matchConstraints);
  if (kinds.length === 0) return [];
  const paramKind = asObj(spec.paramKind);
  const params = paramKind
    ? (storeOfParamKind(stores, { apiVersion: asStr(paramKind.apiVersion) ?? '', kind: asStr(paramKind.kind) ?? '' })
        ?.def ?? null)
    : undefined;
  const namespace = stores.find((s) => s.def.group === '' && s.def.kind === 'Namespace')?.def;
  const { variables, others } = expressionsOf(spec);
  const problems = new Map<string, string[]>();
  const report = (fieldRef: string, kind: MatchedKind, error: string) => {
    const list = problems.get(fieldRef) ?? [];
    list.push(`${kind.gvk}: ${error}\n`);
    problems.set(fieldRef, list);
  };
  for (const kind of kinds) {
    const decls = declarationsFor(kind, params, namespace);
    // Each variable sees those before it, typed; one that does not check is `dyn` to those after it.
    const known: Record<string, string> = {};
    const withVariables = (): Declarations => ({
      variables: { ...decls.variables, variables: VARIABLES_TYPE },
      objectTypes: [...decls.objectTypes, { name: VARIABLES_TYPE, fields: { ...known } }],
    });
    for (const expression of variables) {
      const { type, error } = check(expression.text, withVariables());
      if (error) report(expression.fieldRef, kind, error);
      if (expression.name) known[expression.name] = type ?? 'dyn';
    }
    const all = withVariables();
    for (const expression of others) {
      const { error } = check(expression.text, all);
      if (error) report(expression.fieldRef, kind, error);
    }
  }
  const order = [...variables, ...others].map((e) => e.fieldRef);
  return order.flatMap((fieldRef) => {
    const list = problems.get(fieldRef);
    return list ? [{ fieldRef, warning: list.join('\n') }] : [];
  });
}
