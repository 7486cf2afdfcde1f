/**
 * Groups: `/policy/api/v1/infra/domains/{domain-id}/groups[/{group-id}]`
 * (definitions `Group`, `GroupListResult`; expressions `IPAddressExpression`
 * and `ConjunctionOperator`).
 */
import { randomUUID } from 'node:crypto';
import { collectionRoutes } from './collection-routes.ts';
import { deletable } from './references.ts';
import type { PolicyObject } from './seed.ts';
import { errorCodes, notFound, sendError, type NsxtCall } from './sim-context.ts';
import { addressesProblem } from './value-checks.ts';

/**
 * The expression list's rule (Group definition): odd length, conditions at
 * even indices, `ConjunctionOperator`s at odd ones.
 */
function expressionProblem(expression: readonly PolicyObject[]): string | null {
  if (expression.length > 0 && expression.length % 2 === 0) {
    return 'A non-empty expression list must be of odd size.';
  }
  for (const [index, item] of expression.entries()) {
    const conjunction = item['resource_type'] === 'ConjunctionOperator';
    if (conjunction !== (index % 2 === 1)) {
      return 'Expressions must be at even indices, separated by a ConjunctionOperator at odd indices.';
    }
    if (item['resource_type'] === 'IPAddressExpression') {
      const problem = addressesProblem(item['ip_addresses'] as string[]);
      if (problem !== null) return problem;
    }
  }
  return null;
}

function completeGroup(call: NsxtCall, group: PolicyObject): boolean {
  const expression = (group['expression'] ?? []) as PolicyObject[];
  const problem = expressionProblem(expression);
  if (problem !== null) {
    sendError(call, 400, errorCodes.invalidBody, problem);
    return false;
  }
  const groupPath = String(group['path']);
  group['expression'] = expression.map((item) => {
    const id = typeof item['id'] === 'string' ? item['id'] : randomUUID();
    const kind =
      item['resource_type'] === 'IPAddressExpression'
        ? 'ip-address-expressions'
        : 'conjunction-expressions';
    return {
      ...item,
      id,
      path: `${groupPath}/${kind}/${id}`,
      parent_path: groupPath,
      marked_for_delete: false,
    };
  });
  return true;
}

export function groupRoutes(call: NsxtCall, domainId: string, rest: string[]): void {
  const domain = call.state.domains.get(domainId);
  if (domain === undefined) return notFound(call);
  collectionRoutes(
    call,
    {
      members: domain.groups,
      parentPath: `/infra/domains/${domainId}`,
      resourceType: 'Group',
      definition: 'Group',
      listDefinition: 'GroupListResult',
      complete: completeGroup,
      beforeDelete(inner, existing) {
        // NSX-T 3.x deletes a group in use with force=true; NSX 4.x ignores force (deprecated)
        const forced = inner.major === 3 && inner.request.query.get('force') === 'true';
        return deletable(inner, 'Group', existing, forced);
      },
    },
    rest,
  );
}
