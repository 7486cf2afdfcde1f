import type { ParameterValueResolvers } from '../../generated/graphql.ts';
import { unwrapValue } from '../../upstreams/vro/unwrap-value.ts';

export const ParameterValue: ParameterValueResolvers = {
  value: (parameter) => unwrapValue(parameter.value),
};
