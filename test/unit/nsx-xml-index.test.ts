import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  firewallParseOptions,
  insertRule,
  readFirewallConfig,
  ruleXml,
} from '../../src/upstreams/nsx/v/firewall-xml.ts';
import { buildXmlPartsInSlices } from '../../src/upstreams/nsx/xml/xml-slices.ts';
import {
  mapItems,
  piecesOf,
  splicedElement,
  splicePieces,
  type Pieces,
} from '../../src/upstreams/nsx/xml/xml-splice.ts';
import {
  buildXml,
  childElement,
  childElements,
  childIndexOf,
  element,
  parseXml,
  textElement,
  type ChildIndex,
  type XmlElement,
} from '../../src/upstreams/nsx/xml/xml.ts';
import { newRuleDraft } from '../helpers/nsx.ts';
import { outline } from '../helpers/xml.ts';

const firewall = readFileSync(
  new URL('../fixtures/nsx/vshield-app-firewall-config.xml', import.meta.url),
  'utf8',
);

/** Children written every way a manager may write them. */
const awkward = `<root a="1"><list n='x'>
  <!-- a comment, <not> a tag -->
  <item id="1" note='a &gt; b'>one<![CDATA[ <raw> ]]></item>
  text between
  <item id='2'/>
  <?pi data?>
  <item  id = "3" ><item id="nested"><item/></item></item>
  <other x="&#x41;&amp;">é ü</other>
</list></root>`;

const indexed = (document: string, depth = 1): ChildIndex => {
  let node = parseXml(document, { lazyDepth: depth, indexLazyChildren: true });
  for (let d = 0; d < depth; d++) node = childElements(node)[0] as XmlElement;
  const index = childIndexOf(node);
  if (index === undefined) throw new Error('not indexed');
  return index;
};

const elementsOf = (index: ChildIndex): XmlElement[] =>
  Array.from({ length: index.count }, (_, i) => index.element(i));

describe('the child index of an element read lazily', () => {
  it.each([
    ['awkward children', awkward, 'list'],
    ['a firewall configuration', firewall, 'firewallConfiguration'],
  ])('reads %s as the whole parse does: names, attributes, content', (_what, document, name) => {
    const index = indexed(document);
    const whole = childElements(childElement(parseXml(document), name) as XmlElement);
    expect(index.count).toBe(whole.length);
    expect(elementsOf(index).map((node) => outline(node))).toEqual(
      whole.map((node) => outline(node)),
    );
    expect(Array.from({ length: index.count }, (_, i) => index.name(i))).toEqual(
      whole.map((node) => node.name),
    );
    expect(Array.from({ length: index.count }, (_, i) => index.attributes(i))).toEqual(
      whole.map((node) => node.attributes),
    );
  });

  it('gives each child, or a run of them, as the bytes it stood as', () => {
    const index = indexed(awkward);
    expect(Buffer.from(index.bytes(1)).toString()).toBe(`<item id='2'/>`);
    expect(Buffer.from(index.bytes(1, 2)).toString()).toBe(
      `<item id='2'/>\n  <?pi data?>\n  <item  id = "3" ><item id="nested"><item/></item></item>`,
    );
    expect(() => index.bytes(4)).toThrow(RangeError);
  });

  it('is empty for an element read lazily without child elements, and absent unless asked for', () => {
    expect(indexed('<r><list> text <!-- c --> </list></r>').count).toBe(0);
    const plain = parseXml(awkward, { lazyDepth: 1 });
    expect(childIndexOf(childElements(plain)[0] as XmlElement)).toBeUndefined();
  });
});

/** A seeded generator: the same cases on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
}

describe('splicing the children of an indexed element', () => {
  const document = `<r><list>${Array.from({ length: 12 }, (_, i) => `<c i="${i}"/>`).join('\n')}</list></r>`;
  const list = childElements(
    parseXml(document, { lazyDepth: 1, indexLazyChildren: true }),
  )[0] as XmlElement;
  const label = (pieces: Pieces) =>
    mapItems(pieces, (item) =>
      typeof item === 'number' ? `c${item}` : (item.attributes['new'] ?? '?'),
    );

  it('removes and inserts as an array splice would, over any sequence of edits', () => {
    const next = random(7);
    for (let round = 0; round < 50; round++) {
      let pieces = piecesOf(list) as Pieces;
      let model = label(pieces);
      for (let edit = 0; edit < 6; edit++) {
        const at = Math.floor(next() * (model.length + 1));
        const removed = Math.min(Math.floor(next() * 3), model.length - at);
        const inserted = Array.from({ length: Math.floor(next() * 3) }, (_, k) =>
          element('n', { new: `n${round}.${edit}.${k}` }),
        );
        pieces = splicePieces(pieces, at, removed, inserted);
        model.splice(at, removed, ...inserted.map((node) => node.attributes['new'] ?? '?'));
        expect(label(pieces)).toEqual(model);
        model = label(pieces);
      }
      // written back: untouched children as they stood, new ones built
      const written = buildXml(splicedElement(list, pieces));
      expect(
        childElements(parseXml(written)).map(
          (node) => node.attributes['i'] ?? node.attributes['new'],
        ),
      ).toEqual(model.map((name) => (name.startsWith('c') ? name.slice(1) : name)));
    }
  });

  it('keeps what stood between untouched neighbours, and reads back its children when asked', () => {
    const pieces = splicePieces(piecesOf(list) as Pieces, 5, 1, [textElement('n', 'new')]);
    const spliced = splicedElement(list, pieces);
    expect(buildXml(spliced)).toBe(
      `<list>${Array.from({ length: 5 }, (_, i) => `<c i="${i}"/>`).join('\n')}<n>new</n>${Array.from({ length: 6 }, (_, i) => `<c i="${i + 6}"/>`).join('\n')}</list>`,
    );
    expect(childElements(spliced).map((node) => node.name)).toEqual([
      ...Array<string>(5).fill('c'),
      'n',
      ...Array<string>(6).fill('c'),
    ]);
  });
});

describe('a firewall edit of a large configuration', () => {
  const rules = 2000;
  const document = `<VshieldAppConfiguration><firewallConfiguration contextId="c">\n${Array.from(
    { length: rules },
    (_, i) =>
      `  <layer3FirewallRule disabled="false" id="${1000 + i}"><action>allow</action><notes>rule ${i}</notes></layer3FirewallRule>`,
  ).join('\n')}\n</firewallConfiguration></VshieldAppConfiguration>`;

  it('sends a body of a few parts, every untouched rule as the bytes the manager sent', async () => {
    const config = readFirewallConfig(parseXml(document, firewallParseOptions), 'c', '1');
    const edited = insertRule(config.document, ruleXml(newRuleDraft('new', null)), 1000);
    const { parts, length } = await buildXmlPartsInSlices(edited, { declaration: true });
    expect(parts.length).toBeLessThanOrEqual(5);
    const body = Buffer.concat(parts).toString();
    expect(body.length).toBe(length);
    expect(body).toContain(
      document.slice(
        document.indexOf('<layer3FirewallRule'),
        document.indexOf('\n  <layer3FirewallRule disabled="false" id="2000"'),
      ),
    );
    const written = readFirewallConfig(parseXml(body, firewallParseOptions), 'c', '2');
    const ids = [...written.ruleIndex].map((rule) => rule.id);
    expect(ids).toHaveLength(rules + 1);
    expect(ids[1000]).toBeNull();
    expect(ids[1001]).toBe('2000');
  });
});

describe('the pieces of an element', () => {
  it('are a spliced element’s own, one run of an indexed one, none of one without child elements', () => {
    const root = parseXml('<r><list><c/><c/><c/></list><empty/></r>', {
      lazyDepth: 1,
      indexLazyChildren: true,
    });
    const [list, empty] = childElements(root) as [XmlElement, XmlElement];
    const pieces = piecesOf(list) as Pieces;
    expect(pieces.pieces).toEqual([{ first: 0, last: 2 }]);
    expect(piecesOf(empty)?.pieces).toEqual([]);
    const spliced = splicedElement(list, splicePieces(pieces, 1, 1, [textElement('n', 'x')]));
    expect(piecesOf(spliced)?.pieces).toEqual([
      { first: 0, last: 0 },
      textElement('n', 'x'),
      { first: 2, last: 2 },
    ]);
    expect(piecesOf(parseXml('<a>text</a>'))?.pieces).toEqual([]);
    expect(piecesOf(parseXml('<a><b/></a>'))).toBeUndefined();
  });
});
