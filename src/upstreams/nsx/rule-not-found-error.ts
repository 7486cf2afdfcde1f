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

/** A rule id that a distributed firewall section does not hold (found on reading it, so no write was made). */
export class SectionRuleNotFoundError extends GatewayError {
  readonly code = 'NOT_FOUND';
  constructor(ruleId: string, sectionId: string) {
    super(`Firewall section ${sectionId} has no rule ${ruleId}.`, {
      extensions: { code: 'NOT_FOUND', ruleId, sectionId },
    });
  }
}
