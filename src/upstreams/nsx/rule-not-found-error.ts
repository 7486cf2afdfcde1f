import { GatewayError } from '../../errors.ts';

/** A rule id the current ruleset does not hold (found on reading it, so no write was made). */
export class RuleNotFoundError extends GatewayError {
  readonly code = 'NOT_FOUND';
  constructor(ruleId: string, portGroupId: string) {
    super(`The application firewall of ${portGroupId} has no rule ${ruleId}.`, {
      extensions: { code: 'NOT_FOUND', ruleId, portGroupId },
    });
  }
}
