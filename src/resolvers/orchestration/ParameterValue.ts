import type { ParameterValueResolvers } from '../../generated/graphql.ts';
import { upstreamJson } from '../../json-bounds.ts';
import { unwrapValue } from '../../upstreams/vro/unwrap-value.ts';

export const ParameterValue: ParameterValueResolvers = {
  value: (parameter) => upstreamJson('vro', unwrapValue(parameter.value)),
};
