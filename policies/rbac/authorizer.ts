// The RBAC authorizer: allows when some rule reachable from a binding that names the user matches the request;
// otherwise no opinion (RBAC never denies), with the problems met on the way (unresolvable roleRefs, bad subjects)
// as the reason. Decisions come from the in-memory RbacSource; nothing here touches storage.
import type {
  Authorizer,
  AuthorizationResult,
  NonResourceRule,
  ResourceRule,
  RuleResolver,
  RulesResult,
} from '../authorizer.js';
import { NO_OPINION } from '../authorizer.js';
import { ruleAllows } from './rule-matching.js';
import { createRuleResolver } from './rule-resolver.js';
import type { RbacSource } from './types.js';

export type RbacAuthorizer = Authorizer & RuleResolver;

export function createRbacAuthorizer(source: RbacSource): RbacAuthorizer {
  const resolver = createRuleResolver(source);
  return {
    name: 'RBAC',
    async authorize(attrs): Promise<AuthorizationResult> {
      let allowedBy: string | undefined;
      let errors: string[] | undefined;
      resolver.visitRulesFor(attrs.user, attrs.namespace, (from, rule, err) => {
        if (rule && from && ruleAllows(attrs, rule)) {
          allowedBy = from.describe();
          return false;
        }
        if (err) (errors ??= []).push(err);
        return true;
      });
      if (allowedBy !== undefined) return { decision: 'Allow', reason: `RBAC: allowed by ${allowedBy}` };
      return errors ? { decision: 'NoOpinion', reason: `RBAC: ${joinErrors(errors)}` } : NO_OPINION;
    },

    async rulesFor(user, namespace): Promise<RulesResult> {
      const { rules, errors } = resolver.rulesFor(user, namespace);
      const resourceRules: ResourceRule[] = [];
      const nonResourceRules: NonResourceRule[] = [];
      for (const r of rules) {
        if ((r.nonResourceURLs ?? []).length > 0) {
          nonResourceRules.push({ verbs: [...r.verbs], nonResourceURLs: [...(r.nonResourceURLs ?? [])] });
        } else {
          const rr: ResourceRule = { verbs: [...r.verbs] };
          if (r.apiGroups?.length) rr.apiGroups = [...r.apiGroups];
          if (r.resources?.length) rr.resources = [...r.resources];
          if (r.resourceNames?.length) rr.resourceNames = [...r.resourceNames];
          resourceRules.push(rr);
        }
      }
      const result: RulesResult = { resourceRules, nonResourceRules, incomplete: false };
      if (errors.length > 0) result.evaluationError = joinErrors(errors);
      return result;
    },
  };
}

/** utilerrors.Aggregate's rendering: one error alone, several as `[a, b]`. */
function joinErrors(errors: string[]): string {
  return errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
}
