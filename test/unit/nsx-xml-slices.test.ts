import { describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  buildXmlBytesInSlices,
  buildXmlInSlices,
  buildXmlPartsInSlices,
  copyChunkBytes,
  parseXmlInSlices,
  partsCopied,
} from '../../src/upstreams/nsx/xml/xml-slices.ts';
import {
  buildXml,
  element,
  parseXml,
  textElement,
  XmlError,
} from '../../src/upstreams/nsx/xml/xml.ts';
import { turnsDuring } from '../helpers/xml.ts';

/** About 1 MB: several slices on any machine. */
const large = `<list>${Array.from(
  { length: 10_000 },
  (_, i) =>
    `<ipset id="ipset-${i}"><name>set ${i} &lt;lab&gt;</name><value>10.0.0.${i % 250}</value></ipset>`,
).join('')}</list>`;

describe('parseXmlInSlices', () => {
  it('lets other callbacks run while it parses a large document, and answers what parseXml does', async () => {
    const { value, turns } = await turnsDuring(() => parseXmlInSlices(large));
    expect(turns).toBeGreaterThan(1);
    // the same tree, compared by its text (a deep comparison of 50,000 nodes is slow)
    expect(buildXml(value)).toBe(buildXml(parseXml(large)));
    expect(value.children).toHaveLength(10_000);
  });

  it('rejects a refused document with XmlError', async () => {
    await expect(parseXmlInSlices('<!DOCTYPE a><a/>')).rejects.toBeInstanceOf(XmlError);
    await expect(parseXmlInSlices(`${large}<second/>`)).rejects.toBeInstanceOf(XmlError);
  });
});

describe('buildXmlInSlices', () => {
  it('lets other callbacks run while it builds a large document, and answers what buildXml does', async () => {
    const root = parseXml(large);
    const { value, turns } = await turnsDuring(() => buildXmlInSlices(root, { declaration: true }));
    expect(turns).toBeGreaterThan(1);
    expect(value).toBe(buildXml(root, { declaration: true }));
  });

  it('rejects a name or character XML cannot carry with XmlError', async () => {
    await expect(buildXmlInSlices(textElement('a', 'bell\u0007'))).rejects.toBeInstanceOf(XmlError);
    await expect(buildXmlInSlices(element('a b'))).rejects.toBeInstanceOf(XmlError);
  });
});

describe('buildXmlPartsInSlices and partsCopied', () => {
  it('send the bytes buildXmlBytesInSlices joins, as copies of at most 64 KiB, untouched elements of a document read as bytes included', async () => {
    const bytes = Buffer.from(large);
    const root = parseXml(bytes, { lazyDepth: 1 });
    const edited = { ...root, children: [textElement('first', 'a & b'), ...root.children] };
    const { parts, length } = await buildXmlPartsInSlices(edited, { declaration: true });
    // untouched elements are views of the document, not copies
    expect(parts.some((part) => part.buffer === bytes.buffer)).toBe(true);
    const copies = [...partsCopied(parts)];
    expect(copies.length).toBeGreaterThan(1);
    expect(
      copies.every((copy) => copy.length <= copyChunkBytes && copy.buffer !== bytes.buffer),
    ).toBe(true);
    const sent = Buffer.concat(copies);
    expect(sent.length).toBe(length);
    expect(sent.equals(await buildXmlBytesInSlices(edited, { declaration: true }))).toBe(true);
    expect(sent.toString()).toBe(buildXml(edited, { declaration: true }));
  });
});

describe('slices of a small document', () => {
  const small = element('r', { a: '1' }, [textElement('t', 'é & more')]);
  const written = '<r a="1"><t>é &amp; more</t></r>';

  it('finish in the first slice, without a pause, while the slice has time left', async () => {
    // the clock stands still: a loaded machine must not make a few steps outlast a slice
    const clock = vi.spyOn(performance, 'now').mockReturnValue(1000);
    onTestFinished(() => clock.mockRestore());
    expect(await turnsDuring(() => parseXmlInSlices(written))).toMatchObject({ turns: 0 });
    expect(await turnsDuring(() => buildXmlInSlices(small))).toEqual({ value: written, turns: 0 });
    const bytes = await turnsDuring(() => buildXmlBytesInSlices(small));
    expect(bytes.turns).toBe(0);
    expect(Buffer.isBuffer(bytes.value)).toBe(true);
    expect(bytes.value.toString()).toBe(written);
    const parts = await turnsDuring(() => buildXmlPartsInSlices(small));
    expect(parts.turns).toBe(0);
    // a few steps, done well within one slice of 8 ms
    const few = `<a>${'<b/>'.repeat(600)}</a>`;
    expect((await turnsDuring(() => parseXmlInSlices(few))).turns).toBe(0);
    expect((await turnsDuring(() => buildXmlInSlices(parseXml(few)))).turns).toBe(0);
  });

  it('list the parts written here as made, and their length in bytes', async () => {
    const { parts, made, length } = await buildXmlPartsInSlices(small, { declaration: true });
    expect(made).toEqual(parts);
    expect(length).toBe(Buffer.byteLength(`<?xml version="1.0" encoding="UTF-8"?>${written}`));
    expect(Buffer.concat(parts).toString()).toBe(
      `<?xml version="1.0" encoding="UTF-8"?>${written}`,
    );
  });

  it('copy a body of exactly 64 KiB as one chunk, and none for no bytes', () => {
    const exact = Buffer.alloc(copyChunkBytes, 0x61);
    const chunks = [...partsCopied([exact.subarray(0, 1000), exact.subarray(1000)])];
    expect(chunks.map((chunk) => chunk.length)).toEqual([copyChunkBytes]);
    expect(Buffer.concat(chunks).equals(exact)).toBe(true);
    expect([...partsCopied([])]).toEqual([]);
    expect([...partsCopied([Buffer.alloc(0)])]).toEqual([]);
  });
});
