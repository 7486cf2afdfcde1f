import { getIntrospectionQuery, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { expandedSelections } from '../../src/plugins/expanded-selections.ts';
import { readExamples } from '../helpers/examples.ts';

/** Each of `levels` fragments spreads the next twice: 1 KB of text, 2^levels selections. */
const bomb = (levels: number): string => {
  let document = 'query { viewer { ...G0 } }';
  for (let i = 0; i < levels; i += 1) {
    document += ` fragment G${i} on Viewer { ...G${i + 1} ...G${i + 1} name }`;
  }
  return `${document} fragment G${levels} on Viewer { name }`;
};

describe('the expanded selections of a document', () => {
  it('count each field once per place it is spread, nested fields and inline fragments included', () => {
    const document = parse(`
      query { viewer { name ...F ...F ... on Viewer { via } } }
      fragment F on Viewer { scopes tenant }
    `);
    // viewer, name, 2 × (scopes, tenant), via
    expect(expandedSelections(document)).toBe(7);
  });

  it('count what a fragment bomb expands to, not what it spells, in linear time', () => {
    expect(expandedSelections(parse(bomb(10)))).toBe(2 ** 11);
    expect(expandedSelections(parse(bomb(25)))).toBe(2 ** 26);
    const started = performance.now();
    const huge = expandedSelections(parse(bomb(400)));
    expect(huge).toBeGreaterThan(1e100);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('take the largest of the operations and fragments, an unused fragment included', () => {
    const document = parse(`
      query A { viewer { name } }
      query B { viewer { name via } }
      fragment Unused on Viewer { ...G ...G ...G }
      fragment G on Viewer { name via tenant }
    `);
    expect(expandedSelections(document)).toBe(9);
  });

  it('count nothing for an unknown fragment or a cycle, and end', () => {
    const document = parse(`
      query { viewer { ...A ...Missing } }
      fragment A on Viewer { name ...B }
      fragment B on Viewer { via ...A }
    `);
    expect(expandedSelections(document)).toBe(3);
  });

  it('leave GraphiQL’s introspection and every example far under the default limit of 2000', () => {
    const introspection = getIntrospectionQuery({
      descriptions: true,
      inputValueDeprecation: true,
      oneOf: true,
      schemaDescription: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
    });
    expect(expandedSelections(parse(introspection))).toBeLessThan(400);
    for (const example of readExamples()) {
      expect(expandedSelections(parse(example.document))).toBeLessThan(100);
    }
  });
});
