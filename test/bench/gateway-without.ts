/**
 * The gateway as `npm start` runs it (src/serve.ts), composed without some
 * per-request features, to measure what each costs against the same code
 * with it (the features scenario; cpu-ab.ts's `"without"`):
 *
 *   node <npm start's flags> test/bench/gateway-without.ts --without request-log,metrics
 *
 * The features are `createGateway`'s `optionalFeatures` (src/server.ts).
 */
import { parseArgs } from 'node:util';
import { serve } from '../../src/serve.ts';
import { optionalFeatures, type OptionalFeature } from '../../src/server.ts';

/** The features of a `--without` list; throws on a name that is not one. */
export function featuresOf(list: string): OptionalFeature[] {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  for (const name of names) {
    if (!(optionalFeatures as readonly string[]).includes(name)) {
      throw new Error(`--without: unknown feature "${name}" (${optionalFeatures.join(', ')})`);
    }
  }
  return names as OptionalFeature[];
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { without: { type: 'string', default: '' } } });
  await serve({ without: featuresOf(values.without) });
}
